// Sending through the REST API. A text longer than the limit goes out as several messages in order; a
// transient failure (20429, 5xx, connection refused) is retried once after a short backoff, then handed
// back to the outbox as retryable; a permanent one (21610, 21211, 63016, …) is not retried, and for
// unsubscribed / blocked / out-of-window recipients further sends fail fast until they write again.

import { createHash } from 'node:crypto';
import { chunkText } from '../../core/chunk.js';
import type { OutboundItem, SendResult } from '../../core/types.js';
import { type Logger, maskId } from '../../log.js';
import type { MediaHost } from '../../media/host.js';
import type { SendOptions } from '../types.js';
import { whatsappVerbatim } from '../verbatim.js';
import { findAccepted } from './accepted.js';
import { parseRecipient, senderFor } from './address.js';
import { classifyFailure, describeCode } from './errors.js';
import { failureFields, retryAfterMs, type TwilioClient } from './rest.js';
import type { TwilioSettings } from './settings.js';
import { twilioTextRules } from './settings.js';
import type { TwilioStore } from './store.js';

export interface SenderDeps {
  settings: TwilioSettings;
  log: Logger;
  client?: TwilioClient;
  store?: TwilioStore;
  host?: MediaHost;
  /** Chunks already sent of a long text, by hash of (chat, text), for retries of the same item. */
  progress?: Map<string, number>;
  /** Backoff before the one immediate retry (jittered up to 2×). */
  retryDelayMs: number;
}

/** Twilio's media limits: 5 MB per MMS, 16 MB per WhatsApp message. */
const MEDIA_LIMIT = { sms: 5 * 1048576, whatsapp: 16 * 1048576 } as const;

const fail = (error: string, retryable = false, code?: string): SendResult => ({
  ok: false,
  error,
  retryable,
  code,
});

export async function sendItem(
  deps: SenderDeps,
  chatId: string,
  item: OutboundItem,
  opts: SendOptions = {},
): Promise<SendResult> {
  const { settings, store } = deps;
  const client = deps.client;
  if (!client) return fail('Twilio credentials are not configured');
  const recipient = parseRecipient(chatId);
  if (!recipient) return fail('not a phone number (E.164, optionally whatsapp:)');
  const sender = senderFor(recipient.kind, settings);
  if (!sender) return fail('no twilio.from or twilio.messagingServiceSid configured');
  const blockedCode = await store?.blocked(chatId);
  if (blockedCode) {
    return fail(
      `not sent: ${describeCode(blockedCode) ?? `Twilio error ${blockedCode}`}`,
      false,
      blockedCode,
    );
  }
  const base = { to: recipient.to, ...sender, ...callback(settings) };
  // Sids that cannot be the lost send: the outbox's, and the parts of this item sent just now.
  const resend =
    opts.attemptedAt === undefined ? undefined : { at: opts.attemptedAt, known: new Set(opts.knownIds) };

  switch (item.type) {
    case 'text': {
      // The queue already cut the reply by these same rules: this is the same splitter as a guard (a
      // text that did not come through the queue), so a reply is never cut by two sets of rules.
      // Exact text on WhatsApp goes in a monospace block (its app reads marks); SMS shows it as is.
      const text = item.code && recipient.kind === 'whatsapp' ? whatsappVerbatim(item.text) : item.text;
      const chunks = chunkText(text, twilioTextRules(settings.chunkChars));
      if (chunks.length === 0) return fail('empty message');
      // The outbox should hand us chunks within textLimit; when it does not, remember how far a long
      // text got so a retry of the same item does not send its first parts again.
      const key = chunks.length > 1 ? createHash('sha256').update(`${chatId}\0${text}`).digest('hex') : '';
      let last: SendResult = fail('empty message');
      for (let i = deps.progress?.get(key) ?? 0; i < chunks.length; i++) {
        last = await create(deps, chatId, { ...base, body: chunks[i] }, resend);
        if (!last.ok) return last;
        if (key) deps.progress?.set(key, i + 1);
      }
      if (key) deps.progress?.delete(key);
      return last;
    }
    case 'url': {
      if (!item.url.startsWith('https://')) return fail('media URLs must be https');
      return create(
        deps,
        chatId,
        { ...base, mediaUrl: [item.url], ...caption(item.caption, settings) },
        resend,
      );
    }
    case 'file': {
      if (!deps.host || !settings.mediaBaseUrl) {
        return fail('no public URL for files: set twilio.webhook.publicUrl or twilio.mediaBaseUrl');
      }
      if (item.sizeBytes > MEDIA_LIMIT[recipient.kind])
        return fail('file too large for Twilio', false, 'too_large');
      const staged = await deps.host.stage(item.path, item.mimeType);
      if (!staged.ok) return fail(staged.error);
      if (staged.sizeBytes > MEDIA_LIMIT[recipient.kind])
        return fail('file too large for Twilio', false, 'too_large');
      const url = deps.host.urlFor(settings.mediaBaseUrl, staged.name);
      return create(deps, chatId, { ...base, mediaUrl: [url], ...caption(item.caption, settings) }, resend);
    }
  }
}

type CreateParams = Parameters<TwilioClient['messages']['create']>[0];

async function create(
  deps: SenderDeps,
  chatId: string,
  params: CreateParams,
  resend?: { at: number; known: Set<string> },
): Promise<SendResult> {
  const sent = await createOnce(deps, chatId, params, resend);
  if (sent.ok && sent.providerId) resend?.known.add(sent.providerId);
  return sent;
}

async function createOnce(
  deps: SenderDeps,
  chatId: string,
  params: CreateParams,
  resend?: { at: number; known: ReadonlySet<string> },
): Promise<SendResult> {
  if (resend) {
    const sid = await findAccepted(deps.client!, params, resend.at, deps.log, resend.known);
    if (sid) return record(deps, chatId, sid, 'accepted');
  }
  const first = await attempt(deps, params);
  if (first.ok) return record(deps, chatId, first.sid, first.status);
  let failure = first.failure;
  // Twilio said when to come back (Retry-After): the one quick retry would come too early.
  if (failure.retryNow && !retryAfterMs(deps.client!)) {
    await sleep(deps.retryDelayMs * (1 + Math.random()));
    const second = await attempt(deps, params);
    if (second.ok) return record(deps, chatId, second.sid, second.status);
    failure = second.failure;
  }
  deps.log.warn(
    { to: maskId(chatId), code: failure.code, retryable: failure.retryable },
    `twilio: send failed: ${failure.error}`,
  );
  if (failure.blockRecipient && failure.code) await deps.store?.block(chatId, failure.code);
  const wait = failure.retryable ? retryAfterMs(deps.client!) : undefined;
  return {
    ...fail(failure.error, failure.retryable, failure.code),
    ...(wait !== undefined && { retryAfterMs: wait }),
  };
}

async function attempt(deps: SenderDeps, params: CreateParams) {
  try {
    const m = await deps.client!.messages.create(params);
    return { ok: true as const, sid: m.sid, status: String(m.status ?? 'queued') };
  } catch (err) {
    return { ok: false as const, failure: classifyFailure(failureFields(err)) };
  }
}

async function record(deps: SenderDeps, chatId: string, sid: string, status: string): Promise<SendResult> {
  await deps.store?.recordSent(sid, chatId, status);
  deps.log.debug({ to: maskId(chatId), sid }, 'twilio: sent');
  return { ok: true, providerId: sid };
}

function callback(settings: TwilioSettings): { statusCallback?: string } {
  return settings.statusCallbacks && settings.publicStatusUrl
    ? { statusCallback: settings.publicStatusUrl }
    : {};
}

function caption(text: string | undefined, settings: TwilioSettings): { body?: string } {
  if (!text?.trim()) return {};
  // A caption is one Body: keep it within the limit rather than fail the attachment.
  return { body: chunkText(text, twilioTextRules(settings.chunkChars))[0] };
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

// One verified, well-formed inbound message, from the webhook or from polling: allow-list, then the
// core's inbound handler (which stores it, deduplicated on MessageSid, atomically), attachments as
// links. The caller acknowledges Twilio only on `accepted`, i.e. once the message is durable (or known
// to be a duplicate). The attachments are downloaded later, before the run (fetchInboundMedia).
import { placeText } from '../../core/shared-place.js';
import { limitText } from '../../core/size-text.js';
import type { FetchedMedia, InboundMessage, RemoteMedia } from '../../core/types.js';
import { type Logger, maskId } from '../../log.js';
import { inboundDirOf } from '../../media/inbound.js';
import type { InboundHandler, InboundOutcome } from '../types.js';
import { isAllowed, parseSender } from './address.js';
import { type DownloadNet, downloadAll, problemNote } from './media-download.js';
import { optKeyword } from './opt-out.js';
import type { ParsedInbound } from './params.js';
import type { TwilioSettings } from './settings.js';
import type { TwilioStore } from './store.js';

export interface InboundDeps {
  settings: TwilioSettings;
  log: Logger;
  store: TwilioStore;
  /** The network edge of attachment downloads (default: DNS and http(s) of this machine). */
  net?: DownloadNet;
  mediaDir: string;
  /** Best-effort short notice to the sender (e.g. an attachment was too large). */
  notify(chatId: string, text: string): void;
}

export type InboundDecision =
  | { type: 'accepted'; outcome: InboundOutcome['type'] }
  | { type: 'refused'; reply?: string }
  | { type: 'invalid'; reason: string }
  | { type: 'failed'; error: string };

export async function processInbound(
  deps: InboundDeps,
  handler: InboundHandler,
  parsed: ParsedInbound,
  at: number = Date.now(),
): Promise<InboundDecision> {
  const { settings, log, store } = deps;
  if (settings.accountSid && parsed.accountSid && parsed.accountSid !== settings.accountSid) {
    return { type: 'invalid', reason: 'AccountSid is not this account' };
  }
  const sender = parseSender(parsed.from);
  // Twilio has already (un)subscribed the sender and answers them itself: no run, no reply from us.
  const keyword = optKeyword(sender.kind, parsed.body, parsed.optOutType);
  if (!isAllowed(settings.allowFrom, sender.senderId)) {
    log.info({ from: maskId(sender.chatId) }, 'twilio: sender not on allowFrom, dropped');
    // One static text, at most once a day per sender: a stranger must not be able to run up the bill.
    const reply =
      settings.refusalText && !keyword && (await store.claimRefusal(sender.chatId))
        ? settings.refusalText
        : undefined;
    return { type: 'refused', reply };
  }
  if (keyword) {
    if (keyword === 'opt_out') await store.block(sender.chatId, '21610');
    else await store.unblock(sender.chatId);
    log.info({ from: maskId(sender.chatId), keyword }, 'twilio: opt-out keyword, no run');
    return { type: 'accepted', outcome: 'rejected' };
  }

  const place =
    parsed.place &&
    placeText('a location', parsed.place.latitude, parsed.place.longitude, [
      parsed.place.label,
      parsed.place.address,
    ]);
  const msg: InboundMessage = {
    channel: 'twilio',
    chatId: sender.chatId,
    senderId: sender.senderId,
    senderName: parsed.profileName,
    messageId: parsed.messageSid,
    text: [parsed.body, place].filter(Boolean).join('\n\n'),
    media: [],
    // Fetched just before the run (fetchInboundMedia): the acknowledgement never waits for them, and
    // a redelivery of a stored MessageSid is a duplicate before anything is downloaded.
    ...(parsed.media.length > 0
      ? { remoteMedia: parsed.media.map((m) => ({ url: m.url, mimeType: m.contentType })) }
      : {}),
    isGroup: false,
    mentioned: false,
    at,
  };

  let outcome: InboundOutcome;
  try {
    outcome = await handler(msg);
  } catch (err) {
    outcome = { type: 'failed', error: (err as Error).message };
  }
  switch (outcome.type) {
    case 'stored':
      // A message from the user reopens a WhatsApp window and follows any START.
      unblock(deps, sender.chatId);
      return { type: 'accepted', outcome: outcome.type };
    case 'duplicate':
      log.info({ sid: parsed.messageSid }, 'twilio: duplicate delivery ignored');
      return { type: 'accepted', outcome: outcome.type };
    case 'command':
    case 'rejected':
      unblock(deps, sender.chatId);
      return { type: 'accepted', outcome: outcome.type };
    case 'failed':
      log.error({ sid: parsed.messageSid, error: outcome.error }, 'twilio: inbound message not stored');
      return { type: 'failed', error: outcome.error };
  }
}

/** The message is durable already: a store that refuses this write must not turn the answer into a 5xx. */
async function unblock(deps: InboundDeps, chatId: string): Promise<void> {
  try {
    await deps.store.unblock(chatId);
  } catch (err) {
    deps.log.warn({ err, chat: maskId(chatId) }, 'twilio: could not clear the send block');
  }
}

/** Downloads a stored message's attachments before its run; a problem becomes a note and a notice. */
export async function fetchInboundMedia(
  deps: InboundDeps,
  chatId: string,
  remote: readonly RemoteMedia[],
): Promise<FetchedMedia> {
  const { settings, log } = deps;
  const { media, problems } = await downloadAll(
    remote.map((r) => ({ url: r.url, contentType: r.mimeType })),
    {
      ...(deps.net ? { net: deps.net } : {}),
      creds: settings.rest,
      apiBaseUrl: settings.apiBaseUrl,
      dir: inboundDirOf(deps.mediaDir, 'twilio', chatId),
      maxBytes: settings.maxInboundBytes,
      deadlineMs: settings.mediaTimeoutMs,
    },
  );
  for (const p of problems) {
    log.warn(
      { chat: maskId(chatId), index: p.index, reason: p.reason, detail: p.message },
      'twilio: inbound attachment dropped',
    );
  }
  if (problems.length > 0) deps.notify(chatId, noticeFor(problems, settings.maxInboundBytes));
  return { media, notes: problems.map(problemNote) };
}

function noticeFor(problems: { reason: string }[], maxBytes: number): string {
  if (problems.some((p) => p.reason === 'too_large')) {
    return `Your attachment was too large (limit ${limitText(maxBytes)}) and was not received.`;
  }
  return 'An attachment could not be received. Please send it again.';
}

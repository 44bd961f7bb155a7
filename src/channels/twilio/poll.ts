// Polling mode, for people without a public URL: list recent messages over REST and feed the inbound
// ones we have not seen to the same path the webhook uses. The very first poll only records what is
// already there, so turning polling on never answers a backlog. Seen SIDs and the time cursor are kept
// in the store; the core's MessageSid dedupe still guards against a crash between "stored" and "seen".
import type { Logger } from '../../log.js';
import { bareNumber } from './address.js';
import type { InboundDecision } from './inbound.js';
import type { InboundMediaRef, ParsedInbound } from './params.js';
import type { TwilioClient } from './rest.js';
import type { TwilioSettings } from './settings.js';
import type { TwilioStore } from './store.js';

export interface PollDeps {
  settings: TwilioSettings;
  log: Logger;
  client: TwilioClient;
  store: TwilioStore;
  process(parsed: ParsedInbound, at: number): Promise<InboundDecision>;
  sendText(chatId: string, text: string): Promise<unknown>;
}

export type PollResult =
  | { type: 'initialized'; recorded: number }
  | { type: 'polled'; processed: number; stoppedOnError: boolean };

const INITIALIZED = 'poll.initialized';
const SINCE = 'poll.since';
/** How far before the cursor each listing reaches back, for clock skew and late-indexed messages. */
const OVERLAP_MS = 60 * 60 * 1000;
const MAX_PER_POLL = 200;

export async function pollOnce(deps: PollDeps): Promise<PollResult> {
  const { store, settings, client } = deps;
  const since = Number((await store.getState(SINCE)) ?? 0);
  const listed = await client.messages.list({
    limit: MAX_PER_POLL,
    ...(since > 0 ? { dateSentAfter: new Date(since - OVERLAP_MS) } : {}),
  });
  const inbound = listed
    .filter((m) => m.direction === 'inbound' && toUs(m, settings))
    .sort((a, b) => time(a.dateSent) - time(b.dateSent));
  const newest = Math.max(since, ...inbound.map((m) => time(m.dateSent)));

  if ((await store.getState(INITIALIZED)) !== '1') {
    for (const m of inbound) await store.markPollSeen(m.sid);
    await store.setState(SINCE, String(newest || Date.now()));
    await store.setState(INITIALIZED, '1');
    deps.log.info(
      { recorded: inbound.length },
      'twilio: first poll recorded the existing messages, none answered',
    );
    return { type: 'initialized', recorded: inbound.length };
  }

  let processed = 0;
  for (const m of inbound) {
    if (await store.pollSeen(m.sid)) continue;
    const media = Number(m.numMedia ?? 0) > 0 ? await listMedia(client, m.sid, settings.apiBaseUrl) : [];
    const parsed: ParsedInbound = {
      messageSid: m.sid,
      accountSid: m.accountSid,
      from: m.from ?? '',
      to: m.to,
      body: m.body ?? '',
      media,
    };
    const decision = parsed.from ? await deps.process(parsed, time(m.dateSent) || Date.now()) : undefined;
    if (decision?.type === 'failed') {
      // Keep order: this and later messages are tried again on the next poll.
      return { type: 'polled', processed, stoppedOnError: true };
    }
    if (decision?.type === 'refused' && decision.reply) {
      await deps.sendText(parsed.from, decision.reply).catch(() => undefined);
    }
    await store.markPollSeen(m.sid);
    processed++;
  }
  // Everything listed is now seen, so the next listing can start (with overlap) from the newest.
  await store.setState(SINCE, String(newest));
  return { type: 'polled', processed, stoppedOnError: false };
}

/**
 * The account may have other numbers, used by other apps: only messages to our `from`, or without
 * one to a number of our Messaging Service, are ours to answer.
 */
function toUs(
  m: { to?: string | null; messagingServiceSid?: string | null },
  settings: TwilioSettings,
): boolean {
  if (settings.from) return bareNumber(m.to ?? '') === bareNumber(settings.from);
  if (settings.messagingServiceSid) return m.messagingServiceSid === settings.messagingServiceSid;
  return true;
}

async function listMedia(client: TwilioClient, sid: string, apiBaseUrl: string): Promise<InboundMediaRef[]> {
  const items = await client.messages(sid).media.list({ limit: 10 });
  return items.map((i) => ({
    url: `${apiBaseUrl}${i.uri.replace(/\.json$/, '')}`,
    contentType: i.contentType || 'application/octet-stream',
  }));
}

const time = (d: Date | null | undefined): number =>
  d instanceof Date && !Number.isNaN(d.getTime()) ? d.getTime() : 0;

// After the relay died while Twilio was taking a message, the outbox cannot know whether Twilio
// created it: the answer never came back. Sending again risks the reply twice; so before a resend
// of a chunk whose send had begun, ask Twilio for the recent messages to that recipient and take an
// outbound one with the same body, created since that attempt, as the one we sent. A lookup that
// fails sends anyway (at least once beats never). Twilio has no idempotency key for Messages.
import type { Logger } from '../../log.js';
import { maskId } from '../../log.js';
import type { TwilioClient } from './rest.js';

/**
 * The text as Twilio may have stored it: with Smart Encoding on (a Messaging Service setting), curly
 * quotes, dashes, ellipses and odd spaces are replaced by plain ones before sending, so the body
 * Twilio lists differs from what we asked to send. Both sides are compared in this form.
 */
export function smartEncoded(text: string): string {
  return text
    .replace(/[\u2018\u2019\u201a\u201b\u2032\u2035]/g, "'")
    .replace(/[\u201c\u201d\u201e\u201f\u2033\u2036]/g, '"')
    .replace(/[\u2010-\u2015\u2212]/g, '-')
    .replace(/\u2026/g, '...')
    .replace(/[\u00a0\u2000-\u200a\u202f\u205f\u3000]/g, ' ')
    .replace(/[\u200b\u2060\ufeff]/g, '');
}

/** Clock difference allowed between this machine and Twilio's `date_created`. */
const SKEW_MS = 5 * 60_000;
/** Newest messages to the recipient looked at: the lost one was among the last few sent. */
const LOOK_BACK = 20;

export interface SentParams {
  to: string;
  from?: string;
  body?: string;
}

/**
 * The sid of an outbound message to `params.to` with the same body created since the attempt, other
 * than `known` (sids the outbox already holds: two captionless files, or the same text twice, look
 * alike), or undefined.
 */
export async function findAccepted(
  client: TwilioClient,
  params: SentParams,
  attemptedAt: number,
  log: Logger,
  known: ReadonlySet<string> = new Set(),
): Promise<string | undefined> {
  try {
    const recent = await client.messages.list({
      to: params.to,
      ...(params.from ? { from: params.from } : {}),
      limit: LOOK_BACK,
    });
    const body = smartEncoded(params.body ?? '');
    const match = recent.find(
      (m) =>
        m.direction?.startsWith('outbound') === true &&
        !known.has(m.sid) &&
        smartEncoded(m.body ?? '') === body &&
        m.dateCreated instanceof Date &&
        m.dateCreated.getTime() >= attemptedAt - SKEW_MS,
    );
    if (match)
      log.info({ to: maskId(params.to), sid: match.sid }, 'twilio: already accepted before a restart');
    return match?.sid;
  } catch (err) {
    log.warn({ err, to: maskId(params.to) }, 'twilio: could not check for an earlier send; sending');
    return undefined;
  }
}

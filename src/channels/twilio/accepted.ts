// After the relay died while Twilio was taking a message, the outbox cannot know whether Twilio
// created it: the answer never came back. Sending again risks the reply twice; so before a resend
// of a chunk whose send had begun, ask Twilio for the recent messages to that recipient and take an
// outbound one with the same body, created since that attempt, as the one we sent. A lookup that
// fails sends anyway (at least once beats never). Twilio has no idempotency key for Messages.
import type { Logger } from '../../log.js';
import { maskId } from '../../log.js';
import type { TwilioClient } from './rest.js';

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
    const body = params.body ?? '';
    const match = recent.find(
      (m) =>
        m.direction?.startsWith('outbound') === true &&
        !known.has(m.sid) &&
        (m.body ?? '') === body &&
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

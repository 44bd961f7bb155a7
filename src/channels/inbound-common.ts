// What every channel does with a message it has normalised, whatever the platform: hand it to the
// queue's handler with a few retries while the store refuses it, and fold the outcome of its one
// attachment's download into the text the agent reads. Shared by the channels (WhatsApp, Telegram)
// so the two cannot drift apart.
import type { InboundMedia, InboundMessage } from '../core/types.js';
import type { InboundHandler, InboundOutcome } from './types.js';

/** A download of one inbound attachment: the file, or what to tell the sender and to log. */
export type FetchedAttachment =
  | { ok: true; media: InboundMedia }
  | { ok: false; userMessage: string; log: string };

export interface DeliverOptions {
  /** Waits before each retry; default 1 s, 5 s, 15 s. */
  delaysMs?: readonly number[];
  sleep?: (ms: number) => Promise<void>;
  log: { warn(obj: object, msg: string): void };
}

const realSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());

/**
 * Calls the handler; a `failed` outcome (the store refused it, e.g. a full disk) or a throw is
 * retried after each delay, then returned, so the channel never acknowledges what is not stored.
 */
export async function deliverWithRetry(
  handler: InboundHandler | undefined,
  msg: InboundMessage,
  o: DeliverOptions,
): Promise<InboundOutcome> {
  if (!handler) return { type: 'failed', error: 'channel not started' };
  const delays = o.delaysMs ?? [1_000, 5_000, 15_000];
  const sleep = o.sleep ?? realSleep;
  for (let attempt = 0; ; attempt++) {
    let outcome: InboundOutcome;
    try {
      outcome = await handler(msg);
    } catch (err) {
      outcome = { type: 'failed', error: (err as Error).message };
    }
    if (outcome.type !== 'failed' || attempt >= delays.length) return outcome;
    o.log.warn({ error: outcome.error, attempt: attempt + 1 }, 'inbound store failed, retrying');
    await sleep(delays[attempt] as number);
  }
}

export interface AttachmentDeps {
  /** Tells the sender, in one short line, why their attachment did not come through. */
  notify(): Promise<void>;
  transcribe?: (path: string) => Promise<string | undefined>;
}

/**
 * The message text once its attachment's download is known, or undefined when nothing is left to
 * pass on (the attachment failed and there was no text). A downloaded file joins `media`; a voice
 * note with no text becomes its transcript when transcription is on.
 */
export async function withAttachment(
  text: string,
  kind: string,
  got: FetchedAttachment,
  media: InboundMedia[],
  deps: AttachmentDeps,
): Promise<string | undefined> {
  if (!got.ok) {
    await deps.notify();
    if (!text.trim()) return undefined;
    return `${text}\n[The ${kind} attached to this message could not be downloaded.]`;
  }
  media.push(got.media);
  if (got.media.kind === 'voice' && deps.transcribe && !text.trim())
    return (await deps.transcribe(got.media.path)) ?? '';
  return text;
}

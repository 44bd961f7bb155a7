// What became of a message `agentwire send` handed to the running relay, waited for a little: a
// chat that blocked the bot refuses the first try (Telegram 403), and "handed to the relay" would
// then hide a message that will never arrive. The outbox rows are the truth, read until every part
// is sent or one failed, or the bound passes (a retry back-off is not waited out).

/** A part of the send, as the store has it (`outbox.status`, and the error of a failed one). */
export interface PartState {
  status: string;
  error?: string | null | undefined;
}

export type SendOutcome =
  | { type: 'sent'; parts: number }
  | { type: 'failed'; error: string }
  | { type: 'pending'; waitedMs: number };

/** Pure: what the parts say so far; undefined while a part is still on its way. */
export function outcomeOf(
  parts: readonly PartState[],
): Exclude<SendOutcome, { type: 'pending' }> | undefined {
  const failed = parts.find((p) => p.status === 'failed');
  if (failed) return { type: 'failed', error: failed.error || 'refused by the channel' };
  if (parts.length > 0 && parts.every((p) => p.status === 'sent'))
    return { type: 'sent', parts: parts.length };
  return undefined;
}

const STEP_MS = 50;

export async function waitForOutcome(
  read: () => Promise<readonly PartState[]>,
  waitMs: number,
  now: () => number = Date.now,
): Promise<SendOutcome> {
  const start = now();
  for (;;) {
    const o = outcomeOf(await read());
    if (o) return o;
    const waited = now() - start;
    if (waited >= waitMs) return { type: 'pending', waitedMs: waited };
    await new Promise((r) => setTimeout(r, Math.min(STEP_MS, waitMs - waited)));
  }
}

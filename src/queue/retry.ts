// What happens to a reply chunk whose send failed: tried again after a capped backoff, given up
// because its transient failures outlasted the retry time, or failed at once (a permanent error).
// Pure; table-tested in test/queue/retry.test.ts.
//
// Retrying for a time rather than a number of tries: six tries 1-16 s apart gave up after about
// 40 s, so a Twilio incident of a minute lost every reply written during it. Provider
// outages last minutes to hours; a capped backoff keeps trying through them at a bounded rate.

export interface RetryPolicy {
  /** How long after a chunk was written its transient failures are still retried. */
  retryForMs: number;
  /** Delay before retry n (1-based), already capped. */
  backoffMs: (n: number) => number;
}

export interface FailedSend {
  retryable: boolean;
  /** Failed tries so far, this one included. */
  tries: number;
  createdAt: number;
  now: number;
  /** The provider asked us to wait this long (HTTP Retry-After). */
  retryAfterMs?: number;
  /** False for the notice that tells a chat its replies expired: it waits for the channel, however long. */
  expires: boolean;
  /** Given up (failed) after this many tries, however transient: a status line's edit. */
  maxTries?: number;
}

export type RetryDecision = { type: 'retry'; delayMs: number } | { type: 'expire' } | { type: 'fail' };

export function decideRetry(f: FailedSend, p: RetryPolicy): RetryDecision {
  if (!f.retryable || (f.maxTries !== undefined && f.tries >= f.maxTries)) return { type: 'fail' };
  const deadline = f.expires ? f.createdAt + p.retryForMs : Number.POSITIVE_INFINITY;
  if (f.now >= deadline) return { type: 'expire' };
  // Retry-After is honoured even past the cap (the provider knows when it can take us again), but
  // never past the deadline: the last try happens at the deadline, and expires the chunk if it fails.
  const wanted = Math.max(p.backoffMs(f.tries), f.retryAfterMs ?? 0);
  return { type: 'retry', delayMs: Math.max(0, Math.min(wanted, deadline - f.now)) };
}

/**
 * 1 s, 2 s, 4 s … up to `maxMs`, each spread by ±20 % (`random` in [0, 1)) so chats that failed
 * together do not retry in lockstep.
 */
export function cappedBackoff(maxMs: number, random: () => number = Math.random): (n: number) => number {
  return (n) => {
    const base = Math.min(maxMs, 1000 * 2 ** Math.max(0, n - 1));
    return Math.min(maxMs, Math.round(base * (0.8 + 0.4 * random())));
  };
}

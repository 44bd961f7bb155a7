// Where a turn that needs a new process waits for room in the warm pool, and what the pool knows
// of the queue's demand. Waking is cheap and over-eager on purpose: every waiter asks pool-policy
// `place` again, so a missed reason to wake would be the only bug here, never an extra one.

/**
 * The queue's work, as the pool needs it to decide which process may close (no import of the
 * queue: the queue hands this in, src/queue/warm-demand.ts builds it).
 */
export interface WarmDemand {
  /** The session's chat has work in the queue: messages waiting, or a run not yet in its turn. */
  wanted(sessionKey: string): boolean;
  /** Since when the session's current work has been waiting; undefined: not known (the pool's now). */
  since(sessionKey: string): number | undefined;
}

export class Waiters {
  private list: (() => void)[] = [];

  /** Resolves at the next wake, when `signal` aborts, or at `until` (ms since the epoch, `now`'s clock). */
  wait(signal: AbortSignal | undefined, until: number | undefined, now: number): Promise<void> {
    return new Promise<void>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      if (until !== undefined) {
        timer = setTimeout(done, Math.max(1, until - now));
        timer.unref();
      }
      this.list.push(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  wake(): void {
    const w = this.list;
    this.list = [];
    for (const f of w) f();
  }
}

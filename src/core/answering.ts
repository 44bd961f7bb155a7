// Webhooks a channel has begun reading but not yet answered. Starting an agent process blocks the
// event loop for several milliseconds (libuv forks the whole relay, then waits for the child's
// exec: about 5 ms at the relay's ~120 MB, measured in bench/webhook-ack's burst profile), and a
// provider like Twilio is waiting on each of those answers. So a run's start waits until every
// webhook already in hand is answered (runner/spawn-turn.ts), for a bounded time: a steady stream of
// webhooks may delay a start, never stop it.
let open = 0;
let lastAnswered = Number.NEGATIVE_INFINITY;
let waiters: (() => void)[] = [];

/** Marks one inbound request as in hand; call the returned function (once or more) when answered. */
export function answering(): () => void {
  open++;
  let done = false;
  return () => {
    if (done) return;
    done = true;
    open--;
    lastAnswered = performance.now();
    if (open > 0) return;
    const ready = waiters;
    waiters = [];
    for (const w of ready) w();
  };
}

/** How many inbound requests are in hand and not yet answered. */
export function unanswered(): number {
  return open;
}

/** When (performance.now()) the last inbound request was answered. */
export function lastAnsweredAt(): number {
  return lastAnswered;
}

/** Resolves once no inbound request is waiting for its answer, or after `maxWaitMs`. */
export function allAnswered(maxWaitMs: number): Promise<void> {
  if (open === 0 || maxWaitMs <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      waiters = waiters.filter((w) => w !== done);
      resolve();
    }, maxWaitMs);
    waiters.push(done);
  });
}

// A warm turn's time limit that does not count the time the turn spends waiting for a person (an
// approval from the phone, an `ask_user` question). Without it a question asked near the end of a
// turn, or one left unanswered for its whole timeout (10 minutes, the same as the default run
// timeout), would kill the turn before the agent heard "denied" or "no answer". The limit is still
// a wall-clock limit for everything else: thinking, tools, a CLI that hangs.

export interface TurnTimer {
  clear(): void;
}

/**
 * The shortest re-check: while a person is being waited for, the time left stays the same, so a
 * turn that was nearly out of time would otherwise re-check in a tight loop. The limit may fire
 * this much late; on limits of minutes that is nothing.
 */
const MIN_RECHECK_MS = 250;

/**
 * Calls `onTimeout` once the turn has run `timeoutMs` outside person waits. `personWaitMs` is the
 * total time this turn's run has waited for a person so far (growing while a wait is open);
 * absent, this is a plain timer.
 */
export function turnTimer(
  timeoutMs: number,
  personWaitMs: (() => number) | undefined,
  onTimeout: () => void,
  now: () => number = Date.now,
): TurnTimer {
  const start = now();
  let handle: NodeJS.Timeout | undefined;
  const arm = (ms: number) => {
    handle = setTimeout(check, ms);
  };
  const check = () => {
    const remaining = start + timeoutMs + (personWaitMs?.() ?? 0) - now();
    if (remaining <= 0) {
      handle = undefined;
      onTimeout();
    } else arm(Math.max(remaining, MIN_RECHECK_MS));
  };
  arm(timeoutMs);
  return {
    clear() {
      clearTimeout(handle);
      handle = undefined;
    },
  };
}

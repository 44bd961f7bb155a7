// Time as a dependency: the scheduler never reads Date.now() or calls setTimeout itself, so tests
// drive it with a fake clock and never really wait.

export interface Timer {
  cancel(): void;
}

export interface Clock {
  now(): number;
  /** Calls `fn` once after `ms` (the scheduler keeps `ms` well under setTimeout's 24.8-day limit). */
  setTimer(fn: () => void, ms: number): Timer;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(fn, ms) {
    const t = setTimeout(fn, Math.max(0, ms));
    // The scheduler alone never keeps the process alive; the relay's channels and socket do.
    t.unref();
    return { cancel: () => clearTimeout(t) };
  },
};

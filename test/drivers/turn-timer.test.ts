// A warm turn's limit leaves out the time spent waiting for a person (drivers/turn-timer.ts).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { turnTimer } from '../../src/drivers/turn-timer.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** A person-wait clock the test opens and closes. */
function waits() {
  let total = 0;
  let since: number | undefined;
  return {
    open: () => {
      since = Date.now();
    },
    close: () => {
      if (since !== undefined) total += Date.now() - since;
      since = undefined;
    },
    ms: () => total + (since === undefined ? 0 : Date.now() - since),
  };
}

describe('turnTimer', () => {
  it('without a wait clock it fires at the limit, once', () => {
    const fired = vi.fn();
    turnTimer(1000, undefined, fired);
    vi.advanceTimersByTime(999);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fired).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(10_000);
    expect(fired).toHaveBeenCalledTimes(1);
  });

  it.each([
    // [work before the wait, the wait, when it fires]
    [200, 5000, 6000],
    [0, 300, 1300],
    [999, 1, 1001],
    [500, 0, 1000],
  ])(
    'after %i ms of work and a %i ms wait it fires at %i ms, at most one re-check late',
    (before, wait, at) => {
      const w = waits();
      const fired = vi.fn();
      turnTimer(1000, w.ms, fired);
      vi.advanceTimersByTime(before);
      w.open();
      vi.advanceTimersByTime(wait);
      w.close();
      const elapsed = before + wait;
      vi.advanceTimersByTime(at - elapsed - 1);
      expect(fired).not.toHaveBeenCalled();
      // At most a re-check late: while a wait is open the timer looks again no sooner than 250 ms.
      vi.advanceTimersByTime(1 + 250);
      expect(fired).toHaveBeenCalledTimes(1);
    },
  );

  it('never fires while a wait stays open', () => {
    const w = waits();
    const fired = vi.fn();
    turnTimer(1000, w.ms, fired);
    w.open();
    vi.advanceTimersByTime(60 * 60_000);
    expect(fired).not.toHaveBeenCalled();
    w.close();
    vi.advanceTimersByTime(1000);
    expect(fired).toHaveBeenCalledTimes(1);
  });

  it('clear stops it', () => {
    const fired = vi.fn();
    const t = turnTimer(1000, () => 0, fired);
    t.clear();
    vi.advanceTimersByTime(5000);
    expect(fired).not.toHaveBeenCalled();
  });
});

import { describe, expect, it } from 'vitest';
import type { JobState } from '../../src/core/job-state.js';
import { parseTiming, type Timing } from '../../src/core/timing.js';
import { dueDecision, MISSED_GRACE_MS, nextAfter, planAtStart } from '../../src/heartbeat/plan.js';

const at = (iso: string) => Date.parse(iso);
const MIN = 60_000;
function timing(f: Parameters<typeof parseTiming>[0]): Timing {
  const r = parseTiming(f);
  if (!r.ok) throw new Error(r.error);
  return r.timing;
}
const state = (s: Partial<JobState>): JobState => ({
  fingerprint: 'fp',
  failureStreak: 0,
  attempts: 0,
  done: false,
  ...s,
});

describe('planAtStart', () => {
  const daily8 = timing({ cron: '0 8 * * *', timeZone: 'UTC' });
  const oneShot = timing({ at: '2026-07-01T09:00:00Z' });
  const every15 = timing({ every: '15m' });
  const now = at('2026-07-01T12:00:00Z');

  it.each<[string, Timing, JobState | undefined, ReturnType<typeof planAtStart>]>([
    [
      'new recurring job: the next occurrence, nothing now',
      daily8,
      undefined,
      { type: 'next', occurrence: at('2026-07-02T08:00:00Z'), skippedEarlier: false, retry: false },
    ],
    [
      'new interval job: one interval from now',
      every15,
      undefined,
      { type: 'next', occurrence: now + 15 * MIN, skippedEarlier: false, retry: false },
    ],
    [
      'stored next run still ahead: kept',
      daily8,
      state({ nextRunAt: at('2026-07-02T08:00:00Z') }),
      { type: 'next', occurrence: at('2026-07-02T08:00:00Z'), skippedEarlier: false, retry: false },
    ],
    [
      'missed one daily run: that one, for dueDecision to judge',
      daily8,
      state({ nextRunAt: at('2026-07-01T08:00:00Z') }),
      { type: 'next', occurrence: at('2026-07-01T08:00:00Z'), skippedEarlier: false, retry: false },
    ],
    [
      'missed three days of runs: only the latest is kept',
      daily8,
      state({ nextRunAt: at('2026-06-28T08:00:00Z') }),
      { type: 'next', occurrence: at('2026-07-01T08:00:00Z'), skippedEarlier: true, retry: false },
    ],
    [
      'missed interval runs: the latest on the old phase',
      every15,
      state({ nextRunAt: at('2026-07-01T10:05:00Z') }),
      { type: 'next', occurrence: at('2026-07-01T11:50:00Z'), skippedEarlier: true, retry: false },
    ],
    [
      'one-shot in the future',
      timing({ at: '2026-07-01T18:00:00Z' }),
      undefined,
      { type: 'next', occurrence: at('2026-07-01T18:00:00Z'), skippedEarlier: false, retry: false },
    ],
    [
      'one-shot missed while stopped: due now',
      oneShot,
      undefined,
      { type: 'next', occurrence: at('2026-07-01T09:00:00Z'), skippedEarlier: false, retry: false },
    ],
    ['one-shot already fired', oneShot, state({ done: true }), { type: 'idle', reason: 'done' }],
    [
      'one-shot cut off once: tried again',
      oneShot,
      state({ runningSince: at('2026-07-01T09:00:00Z'), attempts: 1 }),
      { type: 'next', occurrence: at('2026-07-01T09:00:00Z'), skippedEarlier: false, retry: true },
    ],
    [
      'one-shot cut off twice: given up',
      oneShot,
      state({ runningSince: at('2026-07-01T09:05:00Z'), attempts: 2 }),
      { type: 'idle', reason: 'gave_up' },
    ],
  ])('%s', (_name, t, s, expected) => {
    expect(planAtStart(t, s, now)).toEqual(expected);
  });
});

describe('dueDecision', () => {
  const daily8 = timing({ cron: '0 8 * * *', timeZone: 'UTC' });
  const occ = at('2026-07-01T08:00:00Z');
  it.each([
    ['on time', daily8, 0, { type: 'fire', lateMs: 0 }],
    ['within the grace', daily8, MISSED_GRACE_MS, { type: 'fire', lateMs: MISSED_GRACE_MS }],
    ['past the grace', daily8, MISSED_GRACE_MS + 1, { type: 'skip_missed', missedByMs: MISSED_GRACE_MS + 1 }],
    [
      'a one-shot fires however late',
      timing({ at: '2026-07-01T08:00:00Z' }),
      86_400_000,
      { type: 'fire', lateMs: 86_400_000 },
    ],
  ])('%s', (_name, t, lateBy, expected) => {
    expect(dueDecision(t, occ, occ + lateBy)).toEqual(expected);
  });

  it('nextAfter skips occurrences that passed during a long run', () => {
    const every15 = timing({ every: '15m' });
    const start = at('2026-07-01T10:00:00Z');
    expect(nextAfter(every15, start, start)).toBe(start + 15 * MIN);
    expect(nextAfter(every15, start, start + 40 * MIN)).toBe(start + 45 * MIN);
    expect(nextAfter(timing({ at: '2026-07-01T10:00:00Z' }), start, start)).toBeUndefined();
  });
});

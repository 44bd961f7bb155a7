// Due-time policy, pure: what to do at start from the stored state, and whether a due occurrence
// still fires. The rules (docs/heartbeat.md "Restarts and missed runs"):
// - A recurring job never catches up: of the runs missed while the relay was stopped (or the
//   machine slept), only the latest may fire, and only if it is at most MISSED_GRACE_MS old, so a
//   quick restart at 07:59 does not lose the 08:00 plan and a day of downtime does not fire a day
//   of runs at once.
// - A one-shot is never lost: missed while stopped, it fires once at start, late, and says so. If
//   the relay died during its run, it is tried once more; after a second unfinished try it is given up.
import type { JobState } from '../core/job-state.js';
import { lastOccurrence, nextOccurrence, type Timing } from '../core/timing.js';

export const MISSED_GRACE_MS = 10 * 60_000;
/** Firing more than this after the occurrence counts as late (and the prompt says so). */
export const LATE_AFTER_MS = 60_000;
export const MAX_ONE_SHOT_ATTEMPTS = 2;

export type StartPlan =
  | { type: 'idle'; reason: 'done' | 'gave_up' | 'no_occurrence' }
  /** Wait for `occurrence` (already due when it is at or before now). */
  | { type: 'next'; occurrence: number; skippedEarlier: boolean; retry: boolean };

export function planAtStart(t: Timing, state: JobState | undefined, nowMs: number): StartPlan {
  if (t.type === 'at') {
    if (state?.done) return { type: 'idle', reason: 'done' };
    const crashed = state?.runningSince !== undefined;
    if (crashed && (state?.attempts ?? 0) >= MAX_ONE_SHOT_ATTEMPTS)
      return { type: 'idle', reason: 'gave_up' };
    return { type: 'next', occurrence: t.atMs, skippedEarlier: false, retry: crashed };
  }
  const stored = state?.nextRunAt;
  if (stored === undefined) {
    const first = nextOccurrence(t, nowMs, nowMs);
    return first === undefined
      ? { type: 'idle', reason: 'no_occurrence' }
      : { type: 'next', occurrence: first, skippedEarlier: false, retry: false };
  }
  if (stored > nowMs) return { type: 'next', occurrence: stored, skippedEarlier: false, retry: false };
  // Missed while stopped: keep only the latest missed occurrence; dueDecision applies the grace.
  const latest = lastOccurrence(t, nowMs, stored) ?? stored;
  const occurrence = Math.max(latest, stored);
  return { type: 'next', occurrence, skippedEarlier: occurrence > stored, retry: false };
}

export type DueDecision = { type: 'fire'; lateMs: number } | { type: 'skip_missed'; missedByMs: number };

/** Whether an occurrence that is due at `nowMs` still fires. */
export function dueDecision(t: Timing, occurrence: number, nowMs: number): DueDecision {
  const lateMs = Math.max(0, nowMs - occurrence);
  if (t.type !== 'at' && lateMs > MISSED_GRACE_MS) return { type: 'skip_missed', missedByMs: lateMs };
  return { type: 'fire', lateMs };
}

/** The occurrence after one that fired at (or was skipped at) `nowMs`; none for a one-shot. */
export function nextAfter(t: Timing, occurrence: number, nowMs: number): number | undefined {
  if (t.type === 'at') return undefined;
  return nextOccurrence(t, Math.max(nowMs, occurrence), occurrence);
}

export const isLate = (lateMs: number): boolean => lateMs > LATE_AFTER_MS;

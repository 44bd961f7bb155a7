// What the heartbeat and the schedules share: their dependencies, and the small contract the loop
// drives them through.
import type { SystemRunner } from '../core/types.js';
import type { Logger } from '../log.js';
import type { Db } from '../store/db.js';
import type { RunCheck } from './check.js';
import type { Clock } from './clock.js';
import type { JobState } from './plan.js';
import { loadJobState, saveJobState } from './state.js';

export interface JobDeps {
  runner: SystemRunner;
  clock: Clock;
  /** Opened with `scheduleMigration` among its migrations. */
  db: Db;
  log: Logger;
  runCheck: RunCheck;
  /** True once the scheduler is stopping: an aborted run then means "cut off", not "failed". */
  stopping?: () => boolean;
}

export interface Job {
  readonly name: string;
  /** When the loop should next call `fire`; undefined when the job has nothing planned. */
  wakeAt(): number | undefined;
  /** Never rejects: every failure is handled, logged and recorded inside. */
  fire(nowMs: number): Promise<void>;
}

/** The stored state of a job, or a fresh one when none is stored or the timing was changed. */
export function loadOrFresh(db: Db, job: string, fingerprint: string): JobState {
  const stored = loadJobState(db, job);
  if (stored && stored.fingerprint === fingerprint) return stored;
  return { fingerprint, failureStreak: 0, attempts: 0, done: false };
}

/** Saves without letting a store error escape into the loop (it is logged; the job carries on). */
export function persist(d: JobDeps, job: string, state: JobState): void {
  try {
    saveJobState(d.db, job, state, d.clock.now());
  } catch (err) {
    d.log.error({ job, err }, 'could not save schedule state');
  }
}

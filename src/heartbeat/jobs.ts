// What the heartbeat and the schedules share: their dependencies, and the small contract the loop
// drives them through.

import type { JobState } from '../core/job-state.js';
import type { SystemRunner } from '../core/types.js';
import type { Logger } from '../log.js';
import type { JobStateStore } from '../store/job-states.js';
import type { RunCheck } from './check.js';
import type { Clock } from './clock.js';

export interface JobDeps {
  runner: SystemRunner;
  clock: Clock;
  /** The stored job states, read once before the jobs are built (`JobStateStore.loadAll`). */
  stored: ReadonlyMap<string, JobState>;
  /** Where a job's state is written after each change. */
  states: Pick<JobStateStore, 'save'>;
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
export function loadOrFresh(d: Pick<JobDeps, 'stored'>, job: string, fingerprint: string): JobState {
  const stored = d.stored.get(job);
  if (stored && stored.fingerprint === fingerprint) return { ...stored };
  return { fingerprint, failureStreak: 0, attempts: 0, done: false };
}

/**
 * Saves a copy without letting a store error escape into the loop (it is logged; the job carries
 * on). Not awaited: the job's own state is the truth while it runs; the store is what a restart reads.
 */
export function persist(d: JobDeps, job: string, state: JobState): void {
  d.states
    .save(job, { ...state }, d.clock.now())
    .catch((err: unknown) => d.log.error({ job, err }, 'could not save schedule state'));
}

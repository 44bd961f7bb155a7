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

// The last save of each job, per store: a job's saves are written one after the other. On
// PostgreSQL each save is a transaction on any of the pool's connections, and two issued back to
// back (a run begun and ended at once, a plan saved at takeover and a tick skipped right after)
// commit in either order: about half the time the older state was left stored, and the next leader
// planned from it (a one-shot that had run looked cut off and ran again).
const lastSaves = new WeakMap<object, Map<string, Promise<void>>>();

/**
 * Saves a copy without letting a store error escape into the loop (it is logged; the job carries
 * on). Not awaited by the jobs: their own state is the truth while they run; the store is what a
 * restart or the next leader reads. Saves of one job are written in the order they were made; the
 * promise settles when this one is written (or failed, logged).
 */
export function persist(d: JobDeps, job: string, state: JobState): Promise<void> {
  const copy = { ...state };
  const at = d.clock.now();
  const saves = lastSaves.get(d.states) ?? new Map<string, Promise<void>>();
  lastSaves.set(d.states, saves);
  const write = (): Promise<void> => d.states.save(job, copy, at);
  const before = saves.get(job);
  // With none before it, the save starts now, as it always did (SQLite writes it in this call).
  const mine: Promise<void> = (before ? before.then(write) : startNow(write))
    .catch((err: unknown) => d.log.error({ job, err }, 'could not save schedule state'))
    .finally(() => {
      if (saves.get(job) === mine) saves.delete(job);
    });
  saves.set(job, mine);
  return mine;
}

/** `fn()`, with a synchronous throw turned into a rejection. */
function startNow(fn: () => Promise<void>): Promise<void> {
  try {
    return fn();
  } catch (err) {
    return Promise.reject(err);
  }
}

// The job-states port's types, whatever the engine (the SQLite engine: store/sqlite/job-states.ts).
import type { JobState } from '../core/job-state.js';

export interface JobStateStore {
  /** Every stored job's state, by job id (read once when the scheduler starts, and by status). */
  loadAll(): Promise<Map<string, JobState>>;
  save(job: string, state: JobState, at: number): Promise<void>;
}

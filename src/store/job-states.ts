// The job-states port's types, whatever the engine (the SQLite engine: store/sqlite/job-states.ts).
import type { JobState } from '../core/job-state.js';
import type { Fence } from './ownership.js';

export interface JobStateStore {
  /** Every stored job's state, by job id (read once when the scheduler starts, and by status). */
  loadAll(): Promise<Map<string, JobState>>;
  /**
   * `fence`: the `scheduler` leader lease the saving process holds (its `chat` is the lease's name);
   * once another process took that lease the save is refused (a StoreError, reason `conflict`) and
   * writes nothing, so a scheduler that lost the lead cannot overwrite its successor's states.
   */
  save(job: string, state: JobState, at: number, fence?: Fence): Promise<void>;
}

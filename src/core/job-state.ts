// The state of one heartbeat or schedule job: what the scheduler plans from (heartbeat/plan.ts)
// and what the store keeps of it across restarts (store/job-states.ts), one shape for both.

export interface JobState {
  /** The timing as configured when this state was written (see timing.fingerprint). */
  fingerprint: string;
  lastRunAt?: number;
  /** The occurrence the job waits for next. */
  nextRunAt?: number;
  lastOutcome?: string;
  lastDetail?: string;
  /** Consecutive failures: only the first of a streak is reported to the chat. */
  failureStreak: number;
  /** Tries of the current one-shot occurrence that began. */
  attempts: number;
  /** Set while a run is under way; still set at start means the relay died during it. */
  runningSince?: number;
  /** A one-shot that has fired (or was given up). */
  done: boolean;
}

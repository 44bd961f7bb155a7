// Heartbeat and schedule state on PostgreSQL (the rules of store/job-states.ts): one row per job, a
// fenced save checked against the leader lease in its own transaction.
import type { JobState } from '../../core/job-state.js';
import type { JobStateStore } from '../job-states.js';
import { assertLeader } from './fence.js';
import { inTx, type Pool } from './pool.js';

/** A schedule_state row as read. */
export interface JobStateRow {
  job: string;
  fingerprint: string;
  last_run_at: number | null;
  next_run_at: number | null;
  last_outcome: string | null;
  last_detail: string | null;
  failure_streak: number;
  attempts: number;
  running_since: number | null;
  done: boolean;
}

const opt = <T>(v: T | null): T | undefined => (v === null ? undefined : v);

export const toJobState = (row: JobStateRow): JobState => ({
  fingerprint: row.fingerprint,
  lastRunAt: opt(row.last_run_at),
  nextRunAt: opt(row.next_run_at),
  lastOutcome: opt(row.last_outcome),
  lastDetail: opt(row.last_detail),
  failureStreak: row.failure_streak,
  attempts: row.attempts,
  runningSince: opt(row.running_since),
  done: row.done,
});

export function pgJobStateStore(pool: Pool): JobStateStore {
  return {
    loadAll: async () => {
      const r = await pool.query<JobStateRow>('SELECT * FROM schedule_state ORDER BY job');
      return new Map(r.rows.map((row) => [row.job, toJobState(row)]));
    },
    save: async (job, s, at, fence) => {
      await inTx(pool, [], async (c) => {
        await assertLeader(c, fence);
        await c.query(
          `INSERT INTO schedule_state (job, fingerprint, last_run_at, next_run_at, last_outcome, last_detail,
           failure_streak, attempts, running_since, done, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
         ON CONFLICT (job) DO UPDATE SET fingerprint = excluded.fingerprint, last_run_at = excluded.last_run_at,
           next_run_at = excluded.next_run_at, last_outcome = excluded.last_outcome,
           last_detail = excluded.last_detail, failure_streak = excluded.failure_streak,
           attempts = excluded.attempts, running_since = excluded.running_since, done = excluded.done,
           updated_at = excluded.updated_at`,
          [
            job,
            s.fingerprint,
            s.lastRunAt ?? null,
            s.nextRunAt ?? null,
            s.lastOutcome ?? null,
            s.lastDetail ?? null,
            s.failureStreak,
            s.attempts,
            s.runningSince ?? null,
            s.done,
            at,
          ],
        );
      });
    },
  };
}

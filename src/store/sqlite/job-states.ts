// Heartbeat and schedule state: last run, next run, last outcome, and what a restart needs (is a
// one-shot done, did a run begin and never end). One row per job; the heartbeat's job id is
// "heartbeat", a schedule's is "schedule:<id>". The scheduler plans from it (heartbeat/), status reads it.
import type { JobState } from '../../core/job-state.js';
import type { JobStateStore } from '../job-states.js';
import { type Db, type Migration, prepared, transaction } from './db.js';
import { assertLeader } from './ownership-sqlite.js';

export type { JobStateStore } from '../job-states.js';

export const scheduleMigration: Migration = {
  module: 'schedules',
  steps: [
    `CREATE TABLE schedule_state (
      job TEXT PRIMARY KEY,
      fingerprint TEXT NOT NULL,
      last_run_at INTEGER,
      next_run_at INTEGER,
      last_outcome TEXT,
      last_detail TEXT,
      failure_streak INTEGER NOT NULL DEFAULT 0,
      attempts INTEGER NOT NULL DEFAULT 0,
      running_since INTEGER,
      done INTEGER NOT NULL DEFAULT 0,
      updated_at INTEGER NOT NULL
    )`,
  ],
};

interface Row {
  job: string;
  fingerprint: string;
  last_run_at: number | null;
  next_run_at: number | null;
  last_outcome: string | null;
  last_detail: string | null;
  failure_streak: number;
  attempts: number;
  running_since: number | null;
  done: number;
}

const opt = <T>(v: T | null): T | undefined => (v === null ? undefined : v);

function fromRow(row: Row): JobState {
  return {
    fingerprint: row.fingerprint,
    lastRunAt: opt(row.last_run_at),
    nextRunAt: opt(row.next_run_at),
    lastOutcome: opt(row.last_outcome),
    lastDetail: opt(row.last_detail),
    failureStreak: row.failure_streak,
    attempts: row.attempts,
    runningSince: opt(row.running_since),
    done: row.done === 1,
  };
}

/** Every job's state, or an empty map when the table is absent (a store read without migrating). */
export function readJobStates(db: Db): Map<string, JobState> {
  const out = new Map<string, JobState>();
  const table = db
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schedule_state'")
    .get();
  if (!table) return out;
  for (const row of db.prepare('SELECT * FROM schedule_state ORDER BY job').all() as unknown as Row[])
    out.set(row.job, fromRow(row));
  return out;
}

const SAVE = `INSERT INTO schedule_state (job, fingerprint, last_run_at, next_run_at, last_outcome, last_detail,
       failure_streak, attempts, running_since, done, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT(job) DO UPDATE SET fingerprint = excluded.fingerprint, last_run_at = excluded.last_run_at,
       next_run_at = excluded.next_run_at, last_outcome = excluded.last_outcome,
       last_detail = excluded.last_detail, failure_streak = excluded.failure_streak,
       attempts = excluded.attempts, running_since = excluded.running_since, done = excluded.done,
       updated_at = excluded.updated_at`;

/** The store's job states over an open database (opened with `scheduleMigration`). */
export function jobStateStore(db: Db): JobStateStore {
  return {
    loadAll: async () => readJobStates(db),
    save: async (job, s, at, fence) => {
      transaction(db, () => {
        assertLeader(db, fence);
        return prepared(db, SAVE).run(
          job,
          s.fingerprint,
          s.lastRunAt ?? null,
          s.nextRunAt ?? null,
          s.lastOutcome ?? null,
          s.lastDetail ?? null,
          s.failureStreak,
          s.attempts,
          s.runningSince ?? null,
          s.done ? 1 : 0,
          at,
        );
      });
    },
  };
}

// Schedule and heartbeat state in the store: last run, next run, last outcome, and what a restart
// needs (is a one-shot done, did a run begin and never end). One row per job; the heartbeat's job
// id is "heartbeat", a schedule's is "schedule:<id>".
import type { Db, Migration } from '../store/db.js';
import type { JobState } from './plan.js';

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

export const HEARTBEAT_JOB = 'heartbeat';
export const scheduleJob = (id: string): string => `schedule:${id}`;

interface Row {
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

export function loadJobState(db: Db, job: string): JobState | undefined {
  const row = db.prepare('SELECT * FROM schedule_state WHERE job = ?').get(job) as Row | undefined;
  if (!row) return undefined;
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

export function saveJobState(db: Db, job: string, s: JobState, nowMs: number): void {
  db.prepare(
    `INSERT INTO schedule_state (job, fingerprint, last_run_at, next_run_at, last_outcome, last_detail,
       failure_streak, attempts, running_since, done, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT(job) DO UPDATE SET fingerprint = excluded.fingerprint, last_run_at = excluded.last_run_at,
       next_run_at = excluded.next_run_at, last_outcome = excluded.last_outcome,
       last_detail = excluded.last_detail, failure_streak = excluded.failure_streak,
       attempts = excluded.attempts, running_since = excluded.running_since, done = excluded.done,
       updated_at = excluded.updated_at`,
  ).run(
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
    nowMs,
  );
}

/** Every stored job id (to list state left by schedules no longer configured). */
export function listJobs(db: Db): string[] {
  return (db.prepare('SELECT job FROM schedule_state ORDER BY job').all() as { job: string }[]).map(
    (r) => r.job,
  );
}

// The status reader (store/status-read.ts) on PostgreSQL: what `agentwire status` shows, read in one
// REPEATABLE READ, READ ONLY transaction, so every fact comes from one snapshot (no half-applied
// write of another process between two of them), and nothing is ever written or locked. Used by the
// open store (a relay's live status) and by postgres/admin.ts (status and doctor while no relay runs).
import type { JobState } from '../../core/job-state.js';
import type { DailyUsage, RunRecord } from '../contract/runs.js';
import { type ProcessInfo, type ProcessRow, toProcess } from '../ownership.js';
import type { StatusFacts, StatusReader } from '../status-read.js';
import type { AgentTask } from '../tasks.js';
import { type JobStateRow, toJobState } from './job-states.js';
import { unescapeNul } from './nul.js';
import type { Pool, Queryable } from './pool.js';
import { RUN_COLUMNS, type RunRow, toDailyUsage, toRunRecord } from './runs.js';
import { TASK_COLUMNS, type TaskRow, toTask } from './tasks.js';

const LIMIT = 20;

async function rows<T>(q: Queryable, sql: string, params: unknown[] = []): Promise<T[]> {
  return (await q.query(sql, params)).rows as T[];
}

const runs = async (q: Queryable): Promise<RunRecord[]> =>
  (
    await rows<RunRow>(q, `SELECT ${RUN_COLUMNS} FROM runs ORDER BY started_at DESC, id DESC LIMIT $1`, [
      LIMIT,
    ])
  ).map(toRunRecord);

const usage = async (q: Queryable): Promise<DailyUsage[]> =>
  (
    await rows<Record<string, number | string>>(
      q,
      `SELECT * FROM usage_daily WHERE day IN (SELECT DISTINCT day FROM usage_daily ORDER BY day DESC LIMIT 7)
       ORDER BY day DESC, label COLLATE "C"`,
    )
  ).map(toDailyUsage);

const jobStates = async (q: Queryable): Promise<Map<string, JobState>> =>
  new Map(
    (await rows<JobStateRow>(q, 'SELECT * FROM schedule_state ORDER BY job')).map((x) => [
      x.job,
      toJobState(x),
    ]),
  );

const tasks = async (q: Queryable): Promise<AgentTask[]> =>
  (await rows<TaskRow>(q, `SELECT ${TASK_COLUMNS} FROM agent_tasks ORDER BY created_at, id`)).map(toTask);

const processes = async (q: Queryable): Promise<ProcessInfo[]> =>
  (await rows<ProcessRow>(q, 'SELECT * FROM processes ORDER BY started_at, id')).map(toProcess);

/** Every fact, from a migrated database (the caller checked its schema is there). */
export async function readPgStatusFacts(q: Queryable): Promise<StatusFacts> {
  const pending = await rows<{ chat: string; n: number }>(
    q,
    `SELECT chat, count(*) AS n FROM inbox WHERE status = 'pending' GROUP BY chat`,
  );
  const sessions = await rows<{ scope: string; agent: string; last_used_at: number }>(
    q,
    'SELECT scope, agent, last_used_at FROM sessions ORDER BY last_used_at DESC LIMIT 100',
  );
  const [replies] = await rows<{ unsent: number; expired: number; last: number | null }>(
    q,
    `SELECT count(*) FILTER (WHERE status = 'pending') AS unsent,
            count(*) FILTER (WHERE expired_at IS NOT NULL) AS expired, max(expired_at) AS last FROM outbox`,
  );
  const inboxFailures = await rows<StatusFacts['inboxFailures'][number]>(
    q,
    `SELECT chat, note, max(coalesce(finished_at, received_at)) AS at, count(*) AS n FROM inbox
     WHERE kind = 'message' AND status IN ('failed', 'dropped')
     GROUP BY chat, note, coalesce(finished_at, received_at)
     ORDER BY at DESC LIMIT $1`,
    [LIMIT],
  );
  const outboxFailures = await rows<StatusFacts['outboxFailures'][number]>(
    q,
    `SELECT chat, error, coalesce(expired_at, created_at) AS at, expired_at AS expired FROM outbox
     WHERE status = 'failed' ORDER BY id DESC LIMIT $1`,
    [LIMIT],
  );
  const waiting = await rows<{
    chat: string;
    type: 'approval' | 'question';
    created_at: number;
    shown_at: number | null;
  }>(
    q,
    `SELECT chat, type, created_at, shown_at FROM interactions WHERE status = 'pending' ORDER BY id LIMIT 100`,
  );
  const [creds] = await rows<{ data: string; logged_out_at: number | null }>(
    q,
    'SELECT data, logged_out_at FROM wa_creds WHERE id = 1',
  );
  return {
    pending: Object.fromEntries(pending.map((r) => [r.chat, r.n])),
    sessions: sessions.map((r) => ({ chat: r.scope, agent: r.agent, lastUsedAt: r.last_used_at })),
    replies: {
      unsent: replies?.unsent ?? 0,
      expired: replies?.expired ?? 0,
      ...(replies?.last != null && { lastExpiredAt: replies.last }),
    },
    runs: await runs(q),
    usage: await usage(q),
    inboxFailures: inboxFailures.map((r) => ({ ...r, note: r.note === null ? null : unescapeNul(r.note) })),
    outboxFailures: outboxFailures.map((r) => ({
      ...r,
      error: r.error === null ? null : unescapeNul(r.error),
    })),
    jobStates: await jobStates(q),
    tasks: await tasks(q),
    waitingAnswers: waiting.map((r) => ({
      chat: r.chat,
      type: r.type,
      createdAt: r.created_at,
      ...(r.shown_at !== null && { shownAt: r.shown_at }),
    })),
    ...(creds && { whatsappCreds: { data: creds.data, loggedOutAt: creds.logged_out_at } }),
    processes: await processes(q),
    leases: (
      await rows<{ name: string; holder: string; expires_at: number }>(
        q,
        'SELECT name, holder, expires_at FROM leader_leases WHERE holder IS NOT NULL ORDER BY name',
      )
    ).map((r) => ({ name: r.name, holder: r.holder, expiresAt: r.expires_at })),
  };
}

/** `fn` in one read-only snapshot of the database. */
export async function inSnapshot<T>(pool: Pool, fn: (q: Queryable) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const out = await fn(client);
    await client.query('COMMIT');
    return out;
  } catch (err) {
    await client.query('ROLLBACK').catch((e: Error) => {
      broken = e;
    });
    throw err;
  } finally {
    client.release(broken);
  }
}

export function pgStatusReader(pool: Pool): StatusReader {
  return { read: () => inSnapshot(pool, readPgStatusFacts) };
}

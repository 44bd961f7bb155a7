// The status reader (store/status-read.ts) on PostgreSQL: what `agentwire status` shows, read in one
// REPEATABLE READ, READ ONLY transaction, so every fact comes from one snapshot (no half-applied
// write of another process between two of them), and nothing is ever written or locked. Used by the
// open store (a relay's live status) and by postgres/admin.ts (status and doctor while no relay runs).
import type { JobState } from '../../core/job-state.js';
import type { ChatKey } from '../../core/types.js';
import type { DailyUsage, RunRecord } from '../contract/runs.js';
import type { ProcessInfo } from '../ownership.js';
import type { StatusFacts, StatusReader } from '../status-read.js';
import type { AgentTask } from '../tasks.js';
import { unescapeNul } from './nul.js';
import type { Pool, Queryable } from './pool.js';

const LIMIT = 20;
const opt = <T>(v: T | null): T | undefined => (v === null ? undefined : v);

async function rows<T>(q: Queryable, sql: string, params: unknown[] = []): Promise<T[]> {
  return (await q.query(sql, params)).rows as T[];
}

async function runs(q: Queryable): Promise<RunRecord[]> {
  const r = await rows<{
    chat: string;
    agent: string;
    label: string;
    started_at: number;
    duration_ms: number;
    outcome: string;
    error: string | null;
    input_tokens: number | null;
    output_tokens: number | null;
    cost_usd: number | null;
  }>(
    q,
    `SELECT chat, agent, label, started_at, duration_ms, outcome, error, input_tokens, output_tokens, cost_usd
     FROM runs ORDER BY started_at DESC, id DESC LIMIT $1`,
    [LIMIT],
  );
  return r.map((x) => {
    const usage = {
      ...(x.input_tokens !== null && { inputTokens: x.input_tokens }),
      ...(x.output_tokens !== null && { outputTokens: x.output_tokens }),
      ...(x.cost_usd !== null && { costUsd: x.cost_usd }),
    };
    return {
      chat: x.chat,
      agent: x.agent,
      label: x.label,
      startedAt: x.started_at,
      durationMs: x.duration_ms,
      outcome: x.outcome,
      ...(x.error !== null && { error: unescapeNul(x.error) }),
      ...(Object.keys(usage).length > 0 && { usage }),
    };
  });
}

async function usage(q: Queryable): Promise<DailyUsage[]> {
  const r = await rows<Record<string, number | string>>(
    q,
    `SELECT * FROM usage_daily WHERE day IN (SELECT DISTINCT day FROM usage_daily ORDER BY day DESC LIMIT 7)
     ORDER BY day DESC, label COLLATE "C"`,
  );
  return r.map((x) => ({
    day: String(x.day),
    label: String(x.label),
    runs: Number(x.runs),
    runsWithUsage: Number(x.runs_with_usage),
    inputTokens: Number(x.input_tokens),
    outputTokens: Number(x.output_tokens),
    costUsd: Number(x.cost_usd),
    runsWithCost: Number(x.runs_with_cost),
  }));
}

async function jobStates(q: Queryable): Promise<Map<string, JobState>> {
  const r = await rows<{
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
  }>(q, 'SELECT * FROM schedule_state ORDER BY job');
  return new Map(
    r.map((x) => [
      x.job,
      {
        fingerprint: x.fingerprint,
        lastRunAt: opt(x.last_run_at),
        nextRunAt: opt(x.next_run_at),
        lastOutcome: opt(x.last_outcome),
        lastDetail: opt(x.last_detail),
        failureStreak: x.failure_streak,
        attempts: x.attempts,
        runningSince: opt(x.running_since),
        done: x.done,
      },
    ]),
  );
}

async function tasks(q: Queryable): Promise<AgentTask[]> {
  const r = await rows<{
    id: string;
    chat: string;
    prompt: string;
    cron: string | null;
    every: string | null;
    at: string | null;
    time_zone: string | null;
    created_at: number;
    paused_at: number | null;
  }>(
    q,
    'SELECT id, chat, prompt, cron, every, at, time_zone, created_at, paused_at FROM agent_tasks ORDER BY created_at, id',
  );
  return r.map((x) => ({
    id: x.id,
    chat: x.chat as ChatKey,
    prompt: unescapeNul(x.prompt),
    ...(x.cron !== null && { cron: x.cron }),
    ...(x.every !== null && { every: x.every }),
    ...(x.at !== null && { at: x.at }),
    ...(x.time_zone !== null && { timeZone: x.time_zone }),
    createdAt: x.created_at,
    ...(x.paused_at !== null && { pausedAt: x.paused_at }),
  }));
}

async function processes(q: Queryable): Promise<ProcessInfo[]> {
  const r = await rows<{
    id: string;
    host: string;
    pid: number;
    role: string;
    started_at: number;
    last_seen: number;
    fingerprint: string;
    schema_version: number;
  }>(q, 'SELECT * FROM processes ORDER BY started_at, id');
  return r.map((x) => ({
    id: x.id,
    host: x.host,
    pid: x.pid,
    role: x.role,
    startedAt: x.started_at,
    lastSeen: x.last_seen,
    fingerprint: x.fingerprint,
    schemaVersion: x.schema_version,
  }));
}

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

// Sessions, their generations and chat settings on PostgreSQL (the rules of store/sqlite/sessions.ts), and
// the one-statement snapshot a chat command decides on. A scope's generation and its session rows
// are written under the scope's lock (postgres/pool.ts scopeLock): chats share the global scope, so
// the chat's own lock would not keep a /new in one chat and a run's kept session in another apart.
import type { AgentKind } from '../../agents/types.js';
import type { TaskLike } from '../../core/task-line.js';
import type { ChatSettings, SessionRow } from '../contract/sessions.js';
import type { Interaction } from '../interactions.js';
import type { CommandSnapshot, KeptSession, StoredSession } from '../queue-ops.js';
import { fromJsonb } from './nul.js';
import { lockKey, type Queryable, scopeLock } from './pool.js';

/** Takes the scope's lock in a transaction already begun (after any chat lock: one order for all). */
export async function lockScope(q: Queryable, scope: string): Promise<void> {
  await q.query(`SELECT pg_advisory_xact_lock(${lockKey(scopeLock(scope))})`);
}

interface SessionRaw {
  session_id: string;
  created_at: number;
  last_used_at: number;
  confirmed: boolean;
}

const toSession = (r: SessionRaw): SessionRow => ({
  sessionId: r.session_id,
  createdAt: r.created_at,
  lastUsedAt: r.last_used_at,
  confirmed: r.confirmed,
});

/** The scope's session of `agent` and its generation, in one statement (one snapshot). */
export async function storedSession(q: Queryable, scope: string, agent: string): Promise<StoredSession> {
  const r = await q.query<Partial<SessionRaw> & { generation: number | null }>(
    `SELECT s.session_id, s.created_at, s.last_used_at, s.confirmed, g.generation
     FROM (SELECT 1) one
     LEFT JOIN sessions s ON s.scope = $1 AND s.agent = $2
     LEFT JOIN session_generations g ON g.scope = $1`,
    [scope, agent],
  );
  const row = r.rows[0];
  return {
    row: row?.session_id ? toSession(row as SessionRaw) : undefined,
    generation: row?.generation ?? 0,
  };
}

/**
 * Keeps the session a run used, only if the scope's generation is still the one it started in (the
 * caller holds the scope's lock). The same id keeps its age; `touch: false` leaves the idle clock;
 * `confirmed` only ever turns on. Another id replaces the row.
 */
export async function keepSession(q: Queryable, s: KeptSession, now: number): Promise<void> {
  await q.query(
    `INSERT INTO sessions AS cur (scope, agent, session_id, created_at, last_used_at, confirmed)
     SELECT $1::text, $2::text, $3::text, $4::bigint, $4::bigint, $5::boolean
     WHERE coalesce((SELECT generation FROM session_generations WHERE scope = $1::text), 0) = $6::int
     ON CONFLICT (scope, agent) DO UPDATE SET
       last_used_at = CASE WHEN cur.session_id = excluded.session_id AND NOT $7::boolean
                           THEN cur.last_used_at ELSE excluded.last_used_at END,
       created_at = CASE WHEN cur.session_id = excluded.session_id THEN cur.created_at ELSE excluded.created_at END,
       confirmed = CASE WHEN cur.session_id = excluded.session_id THEN cur.confirmed OR excluded.confirmed
                        ELSE excluded.confirmed END,
       session_id = excluded.session_id`,
    [s.scope, s.agent, s.id, now, s.confirmed, s.generation, s.touch],
  );
}

/** /new: the scope's sessions so far are over (the caller holds the scope's lock). */
export async function bumpGeneration(q: Queryable, scope: string): Promise<void> {
  await q.query(
    `INSERT INTO session_generations (scope, generation) VALUES ($1, 1)
     ON CONFLICT (scope) DO UPDATE SET generation = session_generations.generation + 1`,
    [scope],
  );
}

export async function clearSession(q: Queryable, scope: string, agent?: string): Promise<void> {
  if (agent) await q.query('DELETE FROM sessions WHERE scope = $1 AND agent = $2', [scope, agent]);
  else await q.query('DELETE FROM sessions WHERE scope = $1', [scope]);
}

const toSettings = (
  r: { agent: string | null; thinking: string | null; verbose: boolean } | undefined | null,
) => ({
  agent: (r?.agent ?? undefined) as AgentKind | undefined,
  thinking: r?.thinking ?? undefined,
  verbose: r?.verbose === true,
});

export async function chatSettings(q: Queryable, chat: string): Promise<ChatSettings> {
  const r = await q.query('SELECT agent, thinking, "verbose" FROM chat_settings WHERE chat = $1', [chat]);
  return toSettings(r.rows[0]);
}

/** Sets the given fields in one statement; `null` clears one, `undefined` leaves it as it was. */
export async function setChatSettings(
  q: Queryable,
  chat: string,
  change: { agent?: AgentKind | null; thinking?: string | null; verbose?: boolean },
  now: number,
): Promise<void> {
  await q.query(
    `INSERT INTO chat_settings AS cur (chat, agent, thinking, "verbose", updated_at)
     VALUES ($1, $3, $5, coalesce($6, false), $7)
     ON CONFLICT (chat) DO UPDATE SET
       agent = CASE WHEN $2 THEN excluded.agent ELSE cur.agent END,
       thinking = CASE WHEN $4 THEN excluded.thinking ELSE cur.thinking END,
       "verbose" = coalesce($6, cur."verbose"),
       updated_at = excluded.updated_at`,
    [
      chat,
      change.agent !== undefined,
      change.agent ?? null,
      change.thinking !== undefined,
      change.thinking ?? null,
      change.verbose ?? null,
      now,
    ],
  );
}

interface SnapshotRaw {
  settings: { agent: string | null; thinking: string | null; verbose: boolean } | null;
  sessions: (SessionRaw & { agent: string })[];
  waiting: number[];
  tasks: {
    id: string;
    prompt: string;
    cron: string | null;
    every: string | null;
    at: string | null;
    time_zone: string | null;
    paused_at: number | null;
  }[];
  pending: Record<string, unknown>[];
  allowances: string[];
  running: { startedAt: number; senderId: string }[];
}

/** `o` without its null fields: the row's NULLs are the type's absent optional fields. */
const defined = <T>(o: Record<string, unknown>): T =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined)) as T;

/** What a chat command reads, in one statement; `waiting` as the ids of the chat's waiting messages. */
export async function commandSnapshot(
  q: Queryable,
  chat: string,
  scope: string,
  defaultAgent: string,
): Promise<{ snapshot: CommandSnapshot; waitingIds: number[] }> {
  const r = await q.query<SnapshotRaw>(
    `SELECT
       (SELECT row_to_json(c) FROM (SELECT agent, thinking, "verbose" FROM chat_settings WHERE chat = $1) c) AS settings,
       (SELECT coalesce(json_agg(s), '[]') FROM
          (SELECT agent, session_id, created_at, last_used_at, confirmed FROM sessions WHERE scope = $2) s) AS sessions,
       (SELECT coalesce(json_agg(id ORDER BY id), '[]') FROM inbox WHERE chat = $1 AND status = 'pending') AS waiting,
       (SELECT coalesce(json_agg(t ORDER BY t.created_at, t.id), '[]') FROM
          (SELECT id, prompt, cron, every, at, time_zone, paused_at, created_at FROM agent_tasks WHERE chat = $1) t) AS tasks,
       (SELECT coalesce(json_agg(i ORDER BY i.id), '[]') FROM
          (SELECT id, chat, type, run_key AS "runKey", asker, tool_kind AS "toolKind", text, choices,
                  created_at AS "createdAt", shown_at AS "shownAt", expires_at AS "expiresAt", status, answer,
                  closed_at AS "closedAt"
           FROM interactions WHERE status = 'pending' AND chat = $1) i) AS pending,
       (SELECT coalesce(json_agg(tool_kind ORDER BY tool_kind), '[]') FROM chat_allowances WHERE chat = $1) AS allowances,
       (SELECT coalesce(json_agg(r ORDER BY r.id), '[]') FROM
          (SELECT id, started_at AS "startedAt", sender_id AS "senderId" FROM inbox
           WHERE chat = $1 AND status = 'running') r) AS running`,
    [chat, scope],
  );
  // Tasks' prompts and questions' texts are stored escaped (postgres/nul.ts).
  const raw = fromJsonb(r.rows[0] as SnapshotRaw);
  const settings = toSettings(raw.settings);
  const agent = settings.agent ?? defaultAgent;
  const session = raw.sessions.find((s) => s.agent === agent);
  return {
    waitingIds: raw.waiting,
    snapshot: {
      settings,
      session: session && toSession(session),
      waiting: raw.waiting.length,
      tasks: raw.tasks.map((t) =>
        defined<TaskLike>({
          id: t.id,
          prompt: t.prompt,
          cron: t.cron,
          every: t.every,
          at: t.at,
          timeZone: t.time_zone,
          pausedAt: t.paused_at,
        }),
      ),
      pending: raw.pending.map((i) => defined<Interaction>(i)),
      allowances: raw.allowances,
      running: raw.running.map((r) => ({ startedAt: Number(r.startedAt), senderId: r.senderId })),
    },
  };
}

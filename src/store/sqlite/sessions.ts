// Agent sessions and per-chat choices. A session row is keyed by scope (a chat key, or `*` when all
// chats share one session) and agent kind, so switching a chat to another CLI keeps both sessions.
import type { AgentKind } from '../../agents/types.js';
import type { ChatKey } from '../../core/types.js';
import type { ChatSettings, SessionRow, SessionScope } from '../contract/sessions.js';
import { type Db, type Migration, prepared } from './db.js';

export {
  type ChatSettings,
  GLOBAL_SCOPE,
  type SessionRow,
  type SessionScope,
  type SessionState,
  scopeFor,
  sessionState,
} from '../contract/sessions.js';

export const sessionsMigration: Migration = {
  module: 'sessions',
  steps: [
    `CREATE TABLE sessions (
      scope TEXT NOT NULL,
      agent TEXT NOT NULL,
      session_id TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      last_used_at INTEGER NOT NULL,
      PRIMARY KEY (scope, agent)
    );
    CREATE TABLE chat_settings (
      chat TEXT PRIMARY KEY,
      agent TEXT,
      thinking TEXT,
      updated_at INTEGER NOT NULL
    );`,
    // A session the relay chose for a new run is only known to exist once a run in it succeeded
    // (a first run that failed on auth may never have created it). Rows from before were resumed
    // as existing, so they stay confirmed.
    `ALTER TABLE sessions ADD COLUMN confirmed INTEGER NOT NULL DEFAULT 1;`,
    // /verbose: the agent's messages before its final reply are sent to the chat as they come.
    `ALTER TABLE chat_settings ADD COLUMN verbose INTEGER NOT NULL DEFAULT 0;`,
    // A scope's session generation: /new bumps it in the transaction that clears the sessions, and a
    // run keeps its session only if the generation is still the one it started in. Per scope, not
    // per session row: /new deletes the scope's rows, and the count must outlive them.
    `CREATE TABLE session_generations (
      scope TEXT PRIMARY KEY,
      generation INTEGER NOT NULL
    );`,
  ],
};

export function getSession(db: Db, scope: SessionScope, agent: AgentKind): SessionRow | undefined {
  const r = prepared(
    db,
    'SELECT session_id, created_at, last_used_at, confirmed FROM sessions WHERE scope = ? AND agent = ?',
  ).get(scope, agent) as
    | { session_id: string; created_at: number; last_used_at: number; confirmed: number }
    | undefined;
  return r
    ? {
        sessionId: r.session_id,
        createdAt: r.created_at,
        lastUsedAt: r.last_used_at,
        confirmed: r.confirmed === 1,
      }
    : undefined;
}

/**
 * Records the id a run used or the CLI reported. A different id restarts the session's age;
 * `touch: false` (heartbeats) leaves the idle clock where it was. `confirmed` (a run in it
 * succeeded) only ever turns a session's flag on: a failed run later does not make it unknown.
 */
export function saveSession(
  db: Db,
  scope: SessionScope,
  agent: AgentKind,
  sessionId: string,
  now: number,
  touch = true,
  confirmed = true,
): void {
  const old = getSession(db, scope, agent);
  if (old && old.sessionId === sessionId) {
    prepared(
      db,
      `UPDATE sessions SET last_used_at = CASE WHEN ? THEN ? ELSE last_used_at END,
         confirmed = max(confirmed, ?) WHERE scope = ? AND agent = ?`,
    ).run(touch ? 1 : 0, now, confirmed ? 1 : 0, scope, agent);
    return;
  }
  prepared(
    db,
    `INSERT INTO sessions (scope, agent, session_id, created_at, last_used_at, confirmed)
     VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (scope, agent) DO UPDATE SET session_id = excluded.session_id,
       created_at = excluded.created_at, last_used_at = excluded.last_used_at,
       confirmed = excluded.confirmed`,
  ).run(scope, agent, sessionId, now, now, confirmed ? 1 : 0);
}

/** The scope's session generation: 0 until the first /new. */
export function sessionGeneration(db: Db, scope: SessionScope): number {
  const r = prepared(db, 'SELECT generation FROM session_generations WHERE scope = ?').get(scope) as
    | { generation: number }
    | undefined;
  return r?.generation ?? 0;
}

/** /new: the scope's sessions so far are over; a run started before cannot keep its session. */
export function bumpGeneration(db: Db, scope: SessionScope): void {
  prepared(
    db,
    `INSERT INTO session_generations (scope, generation) VALUES (?, 1)
     ON CONFLICT (scope) DO UPDATE SET generation = generation + 1`,
  ).run(scope);
}

/** Forgets the session of one agent kind, or of every kind when `agent` is omitted. Returns rows removed. */
export function clearSession(db: Db, scope: SessionScope, agent?: AgentKind): number {
  const r = agent
    ? prepared(db, 'DELETE FROM sessions WHERE scope = ? AND agent = ?').run(scope, agent)
    : prepared(db, 'DELETE FROM sessions WHERE scope = ?').run(scope);
  return Number(r.changes);
}

export function getChatSettings(db: Db, chat: ChatKey): ChatSettings {
  const r = prepared(db, 'SELECT agent, thinking, verbose FROM chat_settings WHERE chat = ?').get(chat) as
    | { agent: string | null; thinking: string | null; verbose: number }
    | undefined;
  return {
    agent: (r?.agent ?? undefined) as AgentKind | undefined,
    thinking: r?.thinking ?? undefined,
    verbose: r?.verbose === 1,
  };
}

/** Sets the given fields; `null` clears one, `undefined` leaves it as it was. */
export function setChatSettings(
  db: Db,
  chat: ChatKey,
  change: { agent?: AgentKind | null; thinking?: string | null; verbose?: boolean },
  now: number,
): void {
  const cur = getChatSettings(db, chat);
  const agent = change.agent === undefined ? (cur.agent ?? null) : change.agent;
  const thinking = change.thinking === undefined ? (cur.thinking ?? null) : change.thinking;
  const verbose = (change.verbose ?? cur.verbose) ? 1 : 0;
  prepared(
    db,
    `INSERT INTO chat_settings (chat, agent, thinking, verbose, updated_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (chat) DO UPDATE SET agent = excluded.agent, thinking = excluded.thinking,
       verbose = excluded.verbose, updated_at = excluded.updated_at`,
  ).run(chat, agent, thinking, verbose, now);
}

// What `status` reads from the store, in one read transaction: waiting messages per chat, sessions,
// the last runs, recent failures, the scheduler's stored state and WhatsApp's stored link. Used live
// by the relay (over its open store) and offline by `agentwire status` / `doctor` while no relay
// runs (over a read-only connection, never created or migrated). A table that does not exist yet
// (an older or fresh store) reads as empty. What the facts mean is ops/status's business.

import { existsSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { type ProcessInfo, type ProcessRow, toProcess } from '../ownership.js';
import type { StatusFacts, StatusReader } from '../status-read.js';
import type { Db } from './db.js';
import { pendingByChat } from './inbox.js';
import { readJobStates } from './job-states.js';
import { countUnsent, expiredStats } from './outbox.js';
import { dailyUsage, recentRuns } from './runs.js';
import { allTasks } from './tasks.js';
import { readCredsRow, type StoredCreds } from './whatsapp-auth.js';

export type { StatusFacts, StatusReader } from '../status-read.js';

const LIMIT = 20;

function hasTable(db: Db, name: string): boolean {
  return Boolean(db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name));
}

/** A store written by an older version, read without migrating, may lack a newer column. */
function hasColumn(db: Db, table: string, column: string): boolean {
  return (db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).some(
    (c) => c.name === column,
  );
}

function readReplies(db: Db): StatusFacts['replies'] {
  if (!hasTable(db, 'outbox')) return undefined;
  const unsent = countUnsent(db);
  if (!hasColumn(db, 'outbox', 'expired_at')) return { unsent, expired: 0 };
  const e = expiredStats(db);
  return { unsent, expired: e.count, ...(e.lastAt !== undefined && { lastExpiredAt: e.lastAt }) };
}

function inboxFailures(db: Db): StatusFacts['inboxFailures'] {
  return db
    .prepare(
      `SELECT chat, note, max(coalesce(finished_at, received_at)) AS at, count(*) AS n FROM inbox
       WHERE kind = 'message' AND status IN ('failed', 'dropped')
       GROUP BY chat, note, coalesce(finished_at, received_at)
       ORDER BY at DESC LIMIT ?`,
    )
    .all(LIMIT) as StatusFacts['inboxFailures'];
}

function outboxFailures(db: Db): StatusFacts['outboxFailures'] {
  const expiry = hasColumn(db, 'outbox', 'expired_at') ? 'expired_at' : 'NULL';
  return db
    .prepare(
      `SELECT chat, error, coalesce(${expiry}, created_at) AS at, ${expiry} AS expired FROM outbox
       WHERE status = 'failed' ORDER BY id DESC LIMIT ?`,
    )
    .all(LIMIT) as StatusFacts['outboxFailures'];
}

function readFacts(db: Db): StatusFacts {
  const inbox = hasTable(db, 'inbox');
  const replies = readReplies(db);
  const creds = hasTable(db, 'wa_creds') ? readCredsRow(db) : undefined;
  return {
    pending: inbox ? pendingByChat(db) : {},
    sessions: hasTable(db, 'sessions')
      ? (
          db
            .prepare('SELECT scope, agent, last_used_at FROM sessions ORDER BY last_used_at DESC LIMIT 100')
            .all() as { scope: string; agent: string; last_used_at: number }[]
        ).map((r) => ({ chat: r.scope, agent: r.agent, lastUsedAt: r.last_used_at }))
      : [],
    ...(replies && { replies }),
    runs: hasTable(db, 'runs') ? recentRuns(db, LIMIT) : [],
    usage: hasTable(db, 'usage_daily') ? dailyUsage(db) : [],
    inboxFailures: inbox ? inboxFailures(db) : [],
    outboxFailures: hasTable(db, 'outbox') ? outboxFailures(db) : [],
    jobStates: readJobStates(db),
    tasks: hasTable(db, 'agent_tasks') ? allTasks(db) : [],
    waitingAnswers: hasTable(db, 'interactions') ? waitingAnswers(db) : [],
    ...(creds && { whatsappCreds: creds }),
    ...(hasTable(db, 'processes') && { processes: readProcesses(db) }),
    ...(hasTable(db, 'leader_leases') && { leases: readLeases(db) }),
  };
}

function readLeases(db: Db): NonNullable<StatusFacts['leases']> {
  const rows = db
    .prepare('SELECT name, holder, expires_at FROM leader_leases WHERE holder IS NOT NULL ORDER BY name')
    .all() as { name: string; holder: string; expires_at: number }[];
  return rows.map((r) => ({ name: r.name, holder: r.holder, expiresAt: r.expires_at }));
}

function readProcesses(db: Db): ProcessInfo[] {
  return (db.prepare('SELECT * FROM processes ORDER BY started_at, id').all() as unknown as ProcessRow[]).map(
    toProcess,
  );
}

function waitingAnswers(db: Db): StatusFacts['waitingAnswers'] {
  const rows = db
    .prepare(
      `SELECT chat, type, created_at, shown_at FROM interactions WHERE status = 'pending' ORDER BY id LIMIT 100`,
    )
    .all() as { chat: string; type: 'approval' | 'question'; created_at: number; shown_at: number | null }[];
  return rows.map((r) => ({
    chat: r.chat,
    type: r.type,
    createdAt: r.created_at,
    ...(r.shown_at !== null && { shownAt: r.shown_at }),
  }));
}

/** All the facts from one snapshot of the store (a read transaction: no half-applied write between). */
export function readStatusFacts(db: Db): StatusFacts {
  db.exec('BEGIN');
  try {
    return readFacts(db);
  } finally {
    db.exec('COMMIT');
  }
}

export function statusReader(db: Db): StatusReader {
  return { read: async () => readStatusFacts(db) };
}

/**
 * The facts of the store file at `file`, opened read-only; undefined when it does not exist or
 * cannot be read (`status` while no relay runs then shows what the config says).
 */
export async function readStatusFile(file: string): Promise<StatusFacts | undefined> {
  return withReadOnly(file, readStatusFacts);
}

/** WhatsApp's stored creds in the file at `file`, opened read-only; `unreadable` when it cannot be read. */
export async function readWhatsAppCredsFile(file: string): Promise<StoredCreds | undefined | 'unreadable'> {
  if (!existsSync(file)) return undefined;
  try {
    const out = withReadOnly(file, (db) => (hasTable(db, 'wa_creds') ? readCredsRow(db) : undefined), true);
    return out ?? undefined;
  } catch {
    return 'unreadable';
  }
}

function withReadOnly<T>(file: string, fn: (db: Db) => T, rethrow = false): T | undefined {
  if (!existsSync(file)) return undefined;
  let db: Db | undefined;
  try {
    db = new DatabaseSync(file, { readOnly: true });
    db.exec('PRAGMA busy_timeout = 5000');
    return fn(db);
  } catch (err) {
    if (rethrow) throw err;
    return undefined;
  } finally {
    db?.close();
  }
}

/** One value of the channel-state table in the file at `file`, opened read-only; undefined when absent or unreadable. */
export function readChannelValueFile(file: string, channel: string, key: string): string | undefined {
  const row = withReadOnly(file, (db) =>
    hasTable(db, 'channel_state')
      ? (db.prepare('SELECT value FROM channel_state WHERE channel = ? AND key = ?').get(channel, key) as
          | { value: string }
          | undefined)
      : undefined,
  );
  return row?.value;
}

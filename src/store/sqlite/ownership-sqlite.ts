// The ownership port (store/ownership.ts) on SQLite, in the same file as everything else, so it works
// across the processes of one machine: each operation is one BEGIN IMMEDIATE transaction, and that
// lock is database-wide, so two processes taking one lease are serialised and exactly one wins.
//
// Notifications are a table, not a push: SQLite has no way to wake another process, so each process
// polls the rows after the last id it read (one indexed range query per poll), and delivers its own
// notifications to itself at once, without waiting for a poll. The rows are pruned by age.
import { randomUUID } from 'node:crypto';
import type { ChatKey } from '../../core/types.js';
import {
  type Fence,
  FenceConflict,
  type LeaseOutcome,
  type Notification,
  type OwnershipStore,
  type ProcessRow,
  type Topic,
  toProcess,
} from '../ownership.js';
import { type Db, type Migration, prepared, transaction } from './db.js';

export const ownershipMigration: Migration = {
  module: 'ownership',
  steps: [
    `CREATE TABLE processes (
      id TEXT PRIMARY KEY,
      host TEXT NOT NULL,
      pid INTEGER NOT NULL,
      role TEXT NOT NULL,
      started_at INTEGER NOT NULL,
      last_seen INTEGER NOT NULL,
      fingerprint TEXT NOT NULL,
      schema_version INTEGER NOT NULL
    );
    CREATE TABLE chat_leases (
      chat TEXT PRIMARY KEY,
      holder TEXT,
      epoch INTEGER NOT NULL,
      expires_at INTEGER NOT NULL
    );
    CREATE TABLE leader_leases (
      name TEXT PRIMARY KEY,
      holder TEXT,
      epoch INTEGER NOT NULL,
      expires_at INTEGER NOT NULL
    );
    -- AUTOINCREMENT: an id is never reused after pruning, so a reader's "after id n" misses nothing.
    CREATE TABLE notifications (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      topic TEXT NOT NULL,
      key TEXT NOT NULL,
      origin TEXT NOT NULL,
      at INTEGER NOT NULL
    );
    CREATE INDEX notifications_at ON notifications (at);`,
    // Who last gave a chat's lease back: the chat waits a moment for that process (queue/lease-affinity.ts).
    'ALTER TABLE chat_leases ADD COLUMN last_holder TEXT;',
  ],
};

interface LeaseRow {
  holder: string | null;
  epoch: number;
  expires_at: number;
}

/**
 * Sync, inside the transaction of a run-side write: throws FenceConflict unless `fence` is still the
 * chat's lease. Only the holder and epoch count, not the expiry: a lease that ran out while nobody
 * took it harms no one, and the fencing token is what tells a successor's writes from a late one's.
 * `chat`: the chat the write is for, when it names one (it must be the fence's).
 */
export function assertFence(db: Db, fence: Fence | undefined, chat: string = fence?.chat ?? ''): void {
  if (!fence) return;
  // A fence of another chat is no fence for this one.
  if (chat !== fence.chat) throw new FenceConflict(fence, undefined);
  const row = prepared(db, 'SELECT holder, epoch FROM chat_leases WHERE chat = ?').get(fence.chat) as
    | Pick<LeaseRow, 'holder' | 'epoch'>
    | undefined;
  if (row?.holder !== fence.holder || row.epoch !== fence.epoch) throw new FenceConflict(fence, row);
}

/**
 * Sync, inside the transaction of a leader's write (a scheduler saving a job state): throws
 * FenceConflict unless `fence` (its `chat` is the leader lease's name) is still that lease.
 */
export function assertLeader(db: Db, fence: Fence | undefined): void {
  if (!fence) return;
  const row = prepared(db, 'SELECT holder, epoch FROM leader_leases WHERE name = ?').get(fence.chat) as
    | Pick<LeaseRow, 'holder' | 'epoch'>
    | undefined;
  if (row?.holder !== fence.holder || row.epoch !== fence.epoch) throw new FenceConflict(fence, row);
}

/** The chat of an outbox row ('' for none), for fencing a write that names only the row. */
export function outboxChat(db: Db, id: number): string {
  const r = prepared(db, 'SELECT chat FROM outbox WHERE id = ?').get(id) as { chat: string } | undefined;
  return r?.chat ?? '';
}

/** One table's lease rules (chats and leaders share them). */
function acquire(db: Db, table: string, key: string, holder: string, now: number, ttl: number): LeaseOutcome {
  const keyCol = table === 'chat_leases' ? 'chat' : 'name';
  return transaction(db, () => {
    const row = prepared(db, `SELECT holder, epoch, expires_at FROM ${table} WHERE ${keyCol} = ?`).get(key) as
      | LeaseRow
      | undefined;
    const fence = (epoch: number): LeaseOutcome => ({
      type: 'granted',
      fence: { chat: key as ChatKey, holder, epoch },
    });
    if (!row) {
      prepared(db, `INSERT INTO ${table} (${keyCol}, holder, epoch, expires_at) VALUES (?, ?, 1, ?)`).run(
        key,
        holder,
        now + ttl,
      );
      return fence(1);
    }
    if (row.holder === holder) {
      prepared(db, `UPDATE ${table} SET expires_at = ? WHERE ${keyCol} = ?`).run(now + ttl, key);
      return fence(row.epoch);
    }
    if (row.holder !== null && row.expires_at > now)
      return { type: 'held', holder: row.holder, expiresAt: row.expires_at };
    prepared(db, `UPDATE ${table} SET holder = ?, epoch = epoch + 1, expires_at = ? WHERE ${keyCol} = ?`).run(
      holder,
      now + ttl,
      key,
    );
    return fence(row.epoch + 1);
  });
}

/** Every lease `holder` has ends now; the epochs stay, so its fences stay refused. */
function releaseAll(db: Db, holder: string): void {
  prepared(db, 'UPDATE chat_leases SET holder = NULL, expires_at = 0 WHERE holder = ?').run(holder);
  prepared(db, 'UPDATE leader_leases SET holder = NULL, expires_at = 0 WHERE holder = ?').run(holder);
}

export function ownershipStore(db: Db, schemaVersion: number): OwnershipStore {
  return {
    register: async (p, now) => {
      const id = randomUUID();
      prepared(
        db,
        `INSERT INTO processes (id, host, pid, role, started_at, last_seen, fingerprint, schema_version)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(id, p.host, p.pid, p.role, p.startedAt, now, p.fingerprint, schemaVersion);
      return { ...p, id, lastSeen: now, schemaVersion };
    },
    touch: async (id, now) =>
      Number(prepared(db, 'UPDATE processes SET last_seen = ? WHERE id = ?').run(now, id).changes) > 0,
    deregister: async (id) =>
      transaction(db, () => {
        releaseAll(db, id);
        prepared(db, 'DELETE FROM processes WHERE id = ?').run(id);
      }),
    processes: async () =>
      (prepared(db, 'SELECT * FROM processes ORDER BY started_at').all() as unknown as ProcessRow[]).map(
        toProcess,
      ),
    reap: async (_now, gone) =>
      transaction(db, () => {
        const rows = (prepared(db, 'SELECT * FROM processes').all() as unknown as ProcessRow[]).map(
          toProcess,
        );
        const dead = rows.filter(gone);
        for (const p of dead) {
          releaseAll(db, p.id);
          prepared(db, 'DELETE FROM processes WHERE id = ?').run(p.id);
        }
        return dead;
      }),

    acquireChat: async (chat, holder, now, ttl) => acquire(db, 'chat_leases', chat, holder, now, ttl),
    renewChat: async (fence, now, ttl) =>
      Number(
        prepared(db, 'UPDATE chat_leases SET expires_at = ? WHERE chat = ? AND holder = ? AND epoch = ?').run(
          now + ttl,
          fence.chat,
          fence.holder,
          fence.epoch,
        ).changes,
      ) > 0,
    releaseChat: async (fence) => {
      prepared(
        db,
        'UPDATE chat_leases SET last_holder = holder, holder = NULL, expires_at = 0 WHERE chat = ? AND holder = ? AND epoch = ?',
      ).run(fence.chat, fence.holder, fence.epoch);
    },
    lastHolder: async (chat) => {
      const row = prepared(
        db,
        `SELECT l.last_holder AS holder, p.last_seen AS last_seen FROM chat_leases l
         LEFT JOIN processes p ON p.id = l.last_holder WHERE l.chat = ? AND l.last_holder IS NOT NULL`,
      ).get(chat) as { holder: string; last_seen: number | null } | undefined;
      return row && { holder: row.holder, lastSeen: row.last_seen ?? undefined };
    },
    leasedByOthers: async (holder, now) =>
      (
        prepared(
          db,
          'SELECT chat FROM chat_leases WHERE holder IS NOT NULL AND holder != ? AND expires_at > ?',
        ).all(holder, now) as { chat: ChatKey }[]
      ).map((r) => r.chat),
    orphans: async (now) =>
      (
        prepared(
          db,
          `SELECT u.chat AS chat, coalesce(l.epoch, 0) AS epoch
           FROM (SELECT DISTINCT chat FROM inbox WHERE status IN ('pending', 'running')) u
           LEFT JOIN chat_leases l ON l.chat = u.chat
           WHERE l.chat IS NULL OR l.holder IS NULL OR l.expires_at <= ?`,
        ).all(now) as { chat: ChatKey; epoch: number }[]
      ).map((r) => ({ chat: r.chat, epoch: r.epoch })),

    acquireLeader: async (name, holder, now, ttl) => acquire(db, 'leader_leases', name, holder, now, ttl),
    releaseLeader: async (name, holder) => {
      prepared(
        db,
        'UPDATE leader_leases SET holder = NULL, expires_at = 0 WHERE name = ? AND holder = ?',
      ).run(name, holder);
    },

    notify: async (topic, key, origin, now) =>
      Number(
        prepared(db, 'INSERT INTO notifications (topic, key, origin, at) VALUES (?, ?, ?, ?)').run(
          topic,
          key,
          origin,
          now,
        ).lastInsertRowid,
      ),
    notifications: async (afterId, limit) =>
      (
        prepared(
          db,
          'SELECT id, topic, key, origin, at FROM notifications WHERE id > ? ORDER BY id LIMIT ?',
        ).all(afterId, limit) as unknown as Notification[]
      ).map((n) => ({ ...n, topic: n.topic as Topic })),
    lastNotification: async () =>
      (prepared(db, 'SELECT coalesce(max(id), 0) AS id FROM notifications').get() as { id: number }).id,
    pruneNotifications: async (before) =>
      Number(prepared(db, 'DELETE FROM notifications WHERE at < ?').run(before).changes),
  };
}

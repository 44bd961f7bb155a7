// The ownership port (store/ownership.ts) on PostgreSQL, for several relay processes on one
// database, possibly on several hosts. Leases are rows (chat_leases, leader_leases) whose expiry is
// timed by the database's clock, never by a host's (hosts' clocks drift; the database has one): the
// caller's `now` is not used for leases. Taking a lease is one INSERT … ON CONFLICT DO UPDATE whose
// WHERE says when it may be taken, so two processes racing for one chat are serialised on its row
// and exactly one is granted; a new holder gets the next epoch, which fences every earlier holder's
// writes (postgres/fence.ts). Notifications are rows read after the last id, as on SQLite, their ids
// committed in order; each row's NOTIFY rings the other processes' listeners (postgres/listen.ts), so
// they read it at once instead of at their next poll.
import { randomUUID } from 'node:crypto';
import type { ChatKey } from '../../core/types.js';
import {
  type LeaseOutcome,
  type Notification,
  type OwnershipStore,
  type ProcessRow,
  type Topic,
  toProcess,
} from '../ownership.js';
import type { Listener } from './listen.js';
import { DB_NOW_MS, inOrder, inTx, type Pool, type Queryable } from './pool.js';

type LeaseTable = 'chat_leases' | 'leader_leases';
const KEY: Record<LeaseTable, string> = { chat_leases: 'chat', leader_leases: 'name' };

/**
 * One table's lease rules (chats and leaders share them): one statement, granted or not. When not,
 * who holds it is read from the statement's snapshot, which misses a row another process inserted
 * and committed while this statement waited on it: then a second read (a new snapshot) names the
 * holder, or, if the lease was given back meanwhile, the whole thing is tried again.
 */
async function acquire(
  q: Queryable,
  table: LeaseTable,
  key: string,
  holder: string,
  ttl: number,
): Promise<LeaseOutcome> {
  const col = KEY[table];
  for (let attempt = 1; ; attempt++) {
    const r = await q.query<{ epoch: number | null; holder: string | null; expires_at: number | null }>(
      `WITH now AS (SELECT ${DB_NOW_MS} AS ms),
       taken AS (
         INSERT INTO ${table} AS l (${col}, holder, epoch, expires_at)
         SELECT $1, $2, 1, now.ms + $3 FROM now
         ON CONFLICT (${col}) DO UPDATE SET
           holder = excluded.holder,
           epoch = CASE WHEN l.holder = excluded.holder THEN l.epoch ELSE l.epoch + 1 END,
           expires_at = excluded.expires_at
         WHERE l.holder = excluded.holder OR l.holder IS NULL OR l.expires_at <= (SELECT ms FROM now)
         RETURNING epoch)
       SELECT (SELECT epoch FROM taken) AS epoch, cur.holder, cur.expires_at
       FROM (SELECT 1) one LEFT JOIN ${table} cur ON cur.${col} = $1`,
      [key, holder, ttl],
    );
    const row = r.rows[0];
    if (row?.epoch != null)
      return { type: 'granted', fence: { chat: key as ChatKey, holder, epoch: row.epoch } };
    if (row?.holder) return { type: 'held', holder: row.holder, expiresAt: row.expires_at ?? 0 };
    const now = await q.query<{ holder: string | null; expires_at: number }>(
      `SELECT holder, expires_at FROM ${table} WHERE ${col} = $1`,
      [key],
    );
    const cur = now.rows[0];
    if (cur?.holder || attempt >= 3)
      return { type: 'held', holder: cur?.holder ?? '', expiresAt: cur?.expires_at ?? 0 };
  }
}

/** Every lease `holder` has ends now; the epochs stay, so its fences stay refused. */
async function releaseAll(q: Queryable, holder: string): Promise<void> {
  await q.query('UPDATE chat_leases SET holder = NULL, expires_at = 0 WHERE holder = $1', [holder]);
  await q.query('UPDATE leader_leases SET holder = NULL, expires_at = 0 WHERE holder = $1', [holder]);
}

export function pgOwnershipStore(pool: Pool, schemaVersion: number, listener?: Listener): OwnershipStore {
  const rows = async <T>(sql: string, params: unknown[] = []) => (await pool.query(sql, params)).rows as T[];
  return {
    register: async (p, now) => {
      const id = randomUUID();
      await pool.query(
        `INSERT INTO processes (id, host, pid, role, started_at, last_seen, fingerprint, schema_version)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [id, p.host, p.pid, p.role, p.startedAt, now, p.fingerprint, schemaVersion],
      );
      return { ...p, id, lastSeen: now, schemaVersion };
    },
    touch: async (id, now) =>
      ((await pool.query('UPDATE processes SET last_seen = $2 WHERE id = $1', [id, now])).rowCount ?? 0) > 0,
    deregister: (id) =>
      inTx(pool, [], async (c) => {
        await releaseAll(c, id);
        await c.query('DELETE FROM processes WHERE id = $1', [id]);
      }),
    processes: async () =>
      (await rows<ProcessRow>('SELECT * FROM processes ORDER BY started_at')).map(toProcess),
    reap: (_now, gone) =>
      inTx(pool, [], async (c) => {
        const all = (await c.query<ProcessRow>('SELECT * FROM processes FOR UPDATE')).rows.map(toProcess);
        const dead = all.filter(gone);
        for (const p of dead) {
          await releaseAll(c, p.id);
          await c.query('DELETE FROM processes WHERE id = $1', [p.id]);
        }
        return dead;
      }),

    acquireChat: (chat, holder, _now, ttl) => acquire(pool, 'chat_leases', chat, holder, ttl),
    renewChat: async (fence, _now, ttl) =>
      ((
        await pool.query(
          `UPDATE chat_leases SET expires_at = ${DB_NOW_MS} + $4 WHERE chat = $1 AND holder = $2 AND epoch = $3`,
          [fence.chat, fence.holder, fence.epoch, ttl],
        )
      ).rowCount ?? 0) > 0,
    releaseChat: async (fence) => {
      await pool.query(
        'UPDATE chat_leases SET last_holder = holder, holder = NULL, expires_at = 0 WHERE chat = $1 AND holder = $2 AND epoch = $3',
        [fence.chat, fence.holder, fence.epoch],
      );
    },
    lastHolder: async (chat) => {
      const [row] = await rows<{ holder: string; last_seen: number | null }>(
        `SELECT l.last_holder AS holder, p.last_seen AS last_seen FROM chat_leases l
         LEFT JOIN processes p ON p.id = l.last_holder WHERE l.chat = $1 AND l.last_holder IS NOT NULL`,
        [chat],
      );
      return row && { holder: row.holder, lastSeen: row.last_seen ?? undefined };
    },
    leasedByOthers: async (holder) =>
      (
        await rows<{ chat: ChatKey }>(
          `SELECT chat FROM chat_leases WHERE holder IS NOT NULL AND holder <> $1 AND expires_at > ${DB_NOW_MS}`,
          [holder],
        )
      ).map((r) => r.chat),
    orphans: async () =>
      (
        await rows<{ chat: ChatKey; epoch: number }>(
          `SELECT u.chat AS chat, coalesce(l.epoch, 0) AS epoch
           FROM (SELECT DISTINCT chat FROM inbox WHERE status IN ('pending', 'running')) u
           LEFT JOIN chat_leases l ON l.chat = u.chat
           WHERE l.chat IS NULL OR l.holder IS NULL OR l.expires_at <= ${DB_NOW_MS}`,
        )
      ).map((r) => ({ chat: r.chat, epoch: r.epoch })),

    acquireLeader: (name, holder, _now, ttl) => acquire(pool, 'leader_leases', name, holder, ttl),
    releaseLeader: async (name, holder) => {
      await pool.query(
        'UPDATE leader_leases SET holder = NULL, expires_at = 0 WHERE name = $1 AND holder = $2',
        [name, holder],
      );
    },

    // Under one lock for the whole table, in one call (aw_notify, postgres/functions.ts): ids are drawn
    // before commit, so without it a reader that read past id 11 could miss an id 10 committed after
    // it; with it, ids commit in their order. The row's NOTIFY goes out at its commit.
    notify: (topic, key, origin, now) =>
      inOrder(pool, ['notifications'], async () => {
        const r = await pool.query<{ id: number }>('SELECT aw_notify($1, $2, $3, $4) AS id', [
          topic,
          key,
          origin,
          now,
        ]);
        return r.rows[0]?.id ?? 0;
      }),
    ...(listener && { watch: (ring: () => void) => listener.watch(ring) }),
    notifications: async (afterId, limit) =>
      (
        await rows<Notification>(
          'SELECT id, topic, key, origin, at FROM notifications WHERE id > $1 ORDER BY id LIMIT $2',
          [afterId, limit],
        )
      ).map((n) => ({ ...n, topic: n.topic as Topic })),
    lastNotification: async () =>
      (await rows<{ id: number }>('SELECT coalesce(max(id), 0) AS id FROM notifications'))[0]?.id ?? 0,
    pruneNotifications: async (before) =>
      (await pool.query('DELETE FROM notifications WHERE at < $1', [before])).rowCount ?? 0,
  };
}

// Reply chunks, written before they are sent. (key, idx) is unique and inserts never overwrite, so
// writing the same reply twice (a retry, a replay after a crash) cannot make a second send: a chunk
// marked sent stays sent. What is left is a crash between the provider accepting a chunk and markSent
// committing: for a channel that can ask its provider (Twilio), `attempt_at` says a send had begun
// and the channel checks before sending it again; one that cannot (WhatsApp) resends that chunk.
import type { MessageRef } from '../../core/message-ref.js';
import { redactItem } from '../../core/outbound-redact.js';
import type { ChatKey, OutboxItem } from '../../core/types.js';
import { isMessageItem, type MessageRefRow, NOTICE_PREFIX, type OutboxRow } from '../contract/outbox.js';
import type { Fence } from '../ownership.js';
import { type Db, type Migration, prepared } from './db.js';

export { isExpiryNotice, type OutboxRow } from '../contract/outbox.js';

export const outboxMigration: Migration = {
  module: 'outbox',
  steps: [
    `CREATE TABLE outbox (
      id INTEGER PRIMARY KEY,
      key TEXT NOT NULL,
      idx INTEGER NOT NULL,
      chat TEXT NOT NULL,
      item TEXT NOT NULL,
      status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed')),
      tries INTEGER NOT NULL DEFAULT 0,
      created_at INTEGER NOT NULL,
      sent_at INTEGER,
      provider_id TEXT,
      error TEXT,
      UNIQUE (key, idx)
    );
    CREATE INDEX outbox_pending ON outbox (chat, id) WHERE status = 'pending';`,
    // When a send of the chunk first began. A chunk still pending with this set may have reached the
    // provider before the relay died; a channel that can ask the provider checks before resending.
    `ALTER TABLE outbox ADD COLUMN attempt_at INTEGER;`,
    // outbox-retry-until-expiry: when the next try of a chunk that failed is due (so a restart keeps
    // the backoff instead of hammering a provider that is down, or forgetting the chunk), and when a
    // chunk was given up because transient failures outlasted `delivery.retryHours`.
    `ALTER TABLE outbox ADD COLUMN next_at INTEGER;
     ALTER TABLE outbox ADD COLUMN expired_at INTEGER;`,
  ],
};

interface RawRow {
  id: number;
  key: string;
  idx: number;
  chat: string;
  item: string;
  status: string;
  tries: number;
  error: string | null;
  attempt_at: number | null;
  created_at: number;
  next_at: number | null;
}

const toRow = (r: RawRow): OutboxRow => ({
  id: r.id,
  key: r.key,
  idx: r.idx,
  chat: r.chat as ChatKey,
  item: JSON.parse(r.item) as OutboxItem,
  status: r.status as OutboxRow['status'],
  tries: r.tries,
  error: r.error ?? undefined,
  attemptAt: r.attempt_at ?? undefined,
  createdAt: r.created_at,
  nextAt: r.next_at ?? undefined,
});

const COLUMNS = 'id, key, idx, chat, item, status, tries, error, attempt_at, created_at, next_at';

/**
 * Writes the items of one delivery; returns how many were new (0 when `key` was written before).
 * Every row of the outbox is written here, so this is where a credential quoted in any text bound
 * for a chat is masked: it reaches neither the database file nor the channel.
 */
export function enqueueOutbound(
  db: Db,
  chat: ChatKey,
  key: string,
  items: readonly OutboxItem[],
  now: number,
): number {
  const st = prepared(
    db,
    `INSERT INTO outbox (key, idx, chat, item, created_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (key, idx) DO NOTHING`,
  );
  let added = 0;
  items.forEach((item, idx) => {
    added += Number(st.run(key, idx, chat, JSON.stringify(redactItem(item)), now).changes);
  });
  return added;
}

/** The next unsent chunk of a chat: chunks go out one at a time, in the order they were written. */
export function nextPending(db: Db, chat: ChatKey): OutboxRow | undefined {
  const r = prepared(
    db,
    `SELECT ${COLUMNS} FROM outbox WHERE chat = ? AND status = 'pending' ORDER BY id LIMIT 1`,
  ).get(chat) as RawRow | undefined;
  return r ? toRow(r) : undefined;
}

/** A later unsent edit of the same message, under a key with `keyPrefix` (queue-ops.ts). */
export function newerEdit(db: Db, row: OutboxRow, keyPrefix: string): boolean {
  if (row.item.type !== 'edit') return false;
  const r = prepared(
    db,
    `SELECT 1 FROM outbox WHERE chat = ? AND status = 'pending' AND id > ? AND substr(key, 1, ?) = ?
       AND json_extract(item, '$.type') = 'edit' AND json_extract(item, '$.ref') = ? LIMIT 1`,
  ).get(row.chat, row.id, keyPrefix.length, keyPrefix, row.item.ref);
  return r !== undefined;
}

export function chatsWithUnsent(db: Db): ChatKey[] {
  const rows = prepared(
    db,
    `SELECT chat, min(id) AS first FROM outbox WHERE status = 'pending' GROUP BY chat ORDER BY first`,
  ).all() as { chat: string }[];
  return rows.map((r) => r.chat as ChatKey);
}

export function countUnsent(db: Db): number {
  return (prepared(db, `SELECT count(*) AS n FROM outbox WHERE status = 'pending'`).get() as { n: number }).n;
}

export function markSent(db: Db, id: number, now: number, providerId?: string): void {
  prepared(
    db,
    `UPDATE outbox SET status = 'sent', sent_at = ?, provider_id = ?, tries = tries + 1 WHERE id = ?`,
  ).run(now, providerId ?? null, id);
}

/**
 * markSent only while `fence` is still the lease of the row's chat, in one statement (SQLite runs
 * it under its write lock, so the check and the write cannot be split): the delivery's fenced write
 * without a transaction of three statements around it, once per chunk sent. False when nothing
 * changed (no such row, or the lease moved): the caller then asks why, in a transaction.
 */
export function markSentFenced(
  db: Db,
  id: number,
  now: number,
  providerId: string | undefined,
  fence: Fence,
): boolean {
  const r = prepared(
    db,
    `UPDATE outbox SET status = 'sent', sent_at = ?, provider_id = ?, tries = tries + 1
     WHERE id = ? AND chat = ?
       AND EXISTS (SELECT 1 FROM chat_leases WHERE chat = ? AND holder = ? AND epoch = ?)`,
  ).run(now, providerId ?? null, id, fence.chat, fence.chat, fence.holder, fence.epoch);
  return Number(r.changes) > 0;
}

/** Provider ids of a chat's chunks recorded as sent at or after `since`. */
export function sentProviderIds(db: Db, chat: ChatKey, since: number): string[] {
  const rows = prepared(
    db,
    `SELECT provider_id FROM outbox WHERE chat = ? AND status = 'sent' AND sent_at >= ? AND provider_id IS NOT NULL`,
  ).all(chat, since) as { provider_id: string }[];
  return rows.map((r) => r.provider_id);
}

/** Notes that a send of the chunk begins now (the first time only), before the channel is called. */
export function markAttempt(db: Db, id: number, now: number): void {
  prepared(db, `UPDATE outbox SET attempt_at = coalesce(attempt_at, ?) WHERE id = ?`).run(now, id);
}

/**
 * Counts a failed attempt that will be retried at `nextAt` (kept across a restart); returns the
 * tries so far.
 */
export function markAttemptFailed(db: Db, id: number, error: string, nextAt: number): number {
  const r = prepared(
    db,
    `UPDATE outbox SET tries = tries + 1, error = ?, next_at = ? WHERE id = ? RETURNING tries`,
  ).get(error, nextAt, id) as { tries: number } | undefined;
  return r?.tries ?? 0;
}

/** Gives a chunk up because its transient failures outlasted the retry time. */
export function markExpired(db: Db, id: number, error: string, now: number): void {
  prepared(
    db,
    `UPDATE outbox SET status = 'failed', tries = tries + 1, error = ?, expired_at = ? WHERE id = ?`,
  ).run(error, now, id);
}

/**
 * Queues the one notice that tells a chat replies were given up, unless one is still waiting to go
 * out: however many chunks expire during one outage, the chat hears about it once.
 */
export function enqueueExpiryNotice(db: Db, chat: ChatKey, text: string, now: number): boolean {
  const waiting = prepared(
    db,
    `SELECT 1 FROM outbox WHERE chat = ? AND status = 'pending' AND key LIKE '${NOTICE_PREFIX}%' LIMIT 1`,
  ).get(chat);
  if (waiting) return false;
  return enqueueOutbound(db, chat, `${NOTICE_PREFIX}${chat}:${now}`, [{ type: 'text', text }], now) > 0;
}

/** How many chunks expired, and when the last one did (for `status`). */
export function expiredStats(db: Db): { count: number; lastAt?: number } {
  const r = prepared(
    db,
    `SELECT count(*) AS n, max(expired_at) AS last FROM outbox WHERE expired_at IS NOT NULL`,
  ).get() as { n: number; last: number | null };
  return { count: r.n, ...(r.last !== null && { lastAt: r.last }) };
}

export function markFailed(db: Db, id: number, error: string): void {
  prepared(db, `UPDATE outbox SET status = 'failed', tries = tries + 1, error = ? WHERE id = ?`).run(
    error,
    id,
  );
}

/** Every row written under `key`, in chunk order (tests and status). */
export function rowsForKey(db: Db, key: string): OutboxRow[] {
  const rows = prepared(db, `SELECT ${COLUMNS} FROM outbox WHERE key = ? ORDER BY idx`).all(
    key,
  ) as unknown as RawRow[];
  return rows.map(toRow);
}

/**
 * Local files named by chunks not yet settled (the staged media copies they will send). Any status
 * other than sent or failed counts as unsettled, so a copy is never deleted under a reply that may
 * still go out.
 */
export function unsentFilePaths(db: Db): string[] {
  const rows = prepared(
    db,
    `SELECT json_extract(item, '$.path') AS path FROM outbox
       WHERE status NOT IN ('sent', 'failed') AND json_extract(item, '$.type') = 'file'`,
  ).all() as { path: string | null }[];
  return rows.flatMap((r) => (r.path ? [r.path] : []));
}

/** The first row written under `key` (the id send_message answers with), if any. */
export function firstRowId(db: Db, key: string): number | undefined {
  const r = prepared(db, `SELECT id FROM outbox WHERE key = ? ORDER BY idx LIMIT 1`).get(key) as
    | { id: number }
    | undefined;
  return r?.id;
}

/** What agentwire's id of a message names: a row of the outbox (`out:`) or of the inbox (`in:`). */
export function messageRefRow(db: Db, ref: MessageRef): MessageRefRow | undefined {
  if (ref.type === 'out') {
    const r = prepared(db, `SELECT chat, status, provider_id, item FROM outbox WHERE id = ?`).get(ref.id) as
      | { chat: string; status: string; provider_id: string | null; item: string }
      | undefined;
    // An edit or a reaction is a row of the outbox, not a message of the chat.
    if (!r || !isMessageItem(JSON.parse(r.item) as OutboxItem)) return undefined;
    return {
      chat: r.chat as ChatKey,
      own: true,
      status: r.status as OutboxRow['status'],
      ...(r.provider_id !== null && { providerId: r.provider_id }),
    };
  }
  const r = prepared(db, `SELECT chat, message_id, kind FROM inbox WHERE id = ?`).get(ref.id) as
    | { chat: string; message_id: string; kind: string }
    | undefined;
  if (r?.kind !== 'message') return undefined;
  return { chat: r.chat as ChatKey, own: false, status: 'received', providerId: r.message_id };
}

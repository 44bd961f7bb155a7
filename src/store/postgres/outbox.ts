// The outbox on PostgreSQL: the same rows and rules as store/sqlite/outbox.ts. (key, idx) is unique and an
// insert never overwrites, so a reply written twice is stored once. Every text bound for a chat is
// masked here, as in the SQLite engine, before it reaches the database.

import type { MessageRef } from '../../core/message-ref.js';
import { redactItem } from '../../core/outbound-redact.js';
import type { ChatKey, OutboxItem } from '../../core/types.js';
import { isMessageItem, type MessageRefRow, NOTICE_PREFIX, type OutboxRow } from '../contract/outbox.js';
import { fromJsonb, toJsonb, unescapeOpt } from './nul.js';
import type { Queryable } from './pool.js';

export const OUTBOX_COLUMNS =
  'id, key, idx, chat, item, status, tries, error, attempt_at, created_at, next_at';

export interface OutboxRaw {
  id: number;
  key: string;
  idx: number;
  chat: string;
  item: OutboxItem;
  status: string;
  tries: number;
  error: string | null;
  attempt_at: number | null;
  created_at: number;
  next_at: number | null;
}

export const toOutboxRow = (r: OutboxRaw): OutboxRow => ({
  id: r.id,
  key: r.key,
  idx: r.idx,
  chat: r.chat as ChatKey,
  item: fromJsonb(r.item),
  status: r.status as OutboxRow['status'],
  tries: r.tries,
  error: unescapeOpt(r.error) ?? undefined,
  attemptAt: r.attempt_at ?? undefined,
  createdAt: r.created_at,
  nextAt: r.next_at ?? undefined,
});

/** Items as the outbox stores them (masked, NUL escaped), for a JSONB[] parameter. */
export const outboxItems = (items: readonly OutboxItem[]): string[] =>
  items.map((i) => toJsonb(redactItem(i)));

/** Writes the items of one delivery in one statement; how many were new (0: `key` was written before). */
export async function enqueueOutbound(
  q: Queryable,
  chat: string,
  key: string,
  items: readonly OutboxItem[],
  now: number,
): Promise<number> {
  if (items.length === 0) return 0;
  const r = await q.query(
    `INSERT INTO outbox (key, idx, chat, item, created_at)
     SELECT $1::text, t.n - 1, $2::text, t.item, $3::bigint
     FROM unnest($4::jsonb[]) WITH ORDINALITY AS t(item, n)
     ON CONFLICT (key, idx) DO NOTHING`,
    [key, chat, now, outboxItems(items)],
  );
  return r.rowCount ?? 0;
}

/** The one notice that replies expired, unless one still waits to go out (store/sqlite/outbox.ts). */
export async function enqueueExpiryNotice(
  q: Queryable,
  chat: string,
  text: string,
  now: number,
): Promise<boolean> {
  const waiting = await q.query(
    `SELECT 1 FROM outbox WHERE chat = $1 AND status = 'pending' AND starts_with(key, $2) LIMIT 1`,
    [chat, NOTICE_PREFIX],
  );
  if (waiting.rows.length > 0) return false;
  return (
    (await enqueueOutbound(q, chat, `${NOTICE_PREFIX}${chat}:${now}`, [{ type: 'text', text }], now)) > 0
  );
}

/**
 * Whether a later unsent row of the chat under `keyPrefix` edits the same message as `row`, an edit:
 * then `row` is stale (store/sqlite/outbox.ts `newerEdit`).
 */
export async function newerEdit(q: Queryable, row: OutboxRow, keyPrefix: string): Promise<boolean> {
  if (row.item.type !== 'edit') return false;
  const r = await q.query(
    `SELECT 1 FROM outbox WHERE chat = $1 AND status = 'pending' AND id > $2 AND starts_with(key, $3)
       AND item->>'type' = 'edit' AND item->>'ref' = $4 LIMIT 1`,
    [row.chat, row.id, keyPrefix, row.item.ref],
  );
  return r.rows.length > 0;
}

/** The first row written under `key` (the id send_message answers with), if any. */
export async function firstRowId(q: Queryable, key: string): Promise<number | undefined> {
  const r = await q.query<{ id: number }>('SELECT id FROM outbox WHERE key = $1 ORDER BY idx LIMIT 1', [key]);
  return r.rows[0]?.id;
}

/** What agentwire's id of a message names: a row of the outbox (`out:`) or of the inbox (`in:`). */
export async function messageRefRow(q: Queryable, ref: MessageRef): Promise<MessageRefRow | undefined> {
  if (ref.type === 'out') {
    const r = await q.query<{ chat: string; status: string; provider_id: string | null; item: OutboxItem }>(
      'SELECT chat, status, provider_id, item FROM outbox WHERE id = $1',
      [ref.id],
    );
    const row = r.rows[0];
    // An edit or a reaction is a row of the outbox, not a message of the chat.
    if (!row || !isMessageItem(row.item)) return undefined;
    return {
      chat: row.chat as ChatKey,
      own: true,
      status: row.status as OutboxRow['status'],
      ...(row.provider_id !== null && { providerId: row.provider_id }),
    };
  }
  const r = await q.query<{ chat: string; message_id: string; kind: string }>(
    'SELECT chat, message_id, kind FROM inbox WHERE id = $1',
    [ref.id],
  );
  const row = r.rows[0];
  if (row?.kind !== 'message') return undefined;
  return { chat: row.chat as ChatKey, own: false, status: 'received', providerId: row.message_id };
}

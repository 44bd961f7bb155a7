// The inbox on PostgreSQL: the same rows and rules as store/sqlite/inbox.ts. Every function here runs inside
// the caller's transaction, which holds the chat's lock (postgres/pool.ts) for any write that must
// see the chat's messages as they are: the dedupe claim is the UNIQUE (channel, message_id) insert.
import type { ChatKey, InboundMedia, InboundMessage, RemoteMedia } from '../../core/types.js';
import type { InboxRow, InboxStatus } from '../contract/inbox.js';
import { escapeNul, escapeOpt, fromJsonb, toJsonb, unescapeNul, unescapeOpt } from './nul.js';
import type { Queryable } from './pool.js';

export const INBOX_COLUMNS = `id, chat, kind, message_id, sender_id, sender_name, text, media, context, is_group,
  sent_at, received_at, status, tries, started_at, finished_at, note, remote_media, owner, lease_epoch`;

export interface InboxRaw {
  id: number;
  chat: string;
  kind: string;
  message_id: string;
  sender_id: string;
  sender_name: string | null;
  text: string;
  media: InboundMedia[];
  context: string | null;
  is_group: boolean;
  sent_at: number;
  received_at: number;
  status: string;
  tries: number;
  started_at: number | null;
  finished_at: number | null;
  note: string | null;
  remote_media: RemoteMedia[] | null;
  owner: string | null;
  lease_epoch: number | null;
}

export function toInboxRow(r: InboxRaw): InboxRow {
  return {
    id: r.id,
    chat: r.chat as ChatKey,
    kind: r.kind as InboxRow['kind'],
    messageId: r.message_id,
    senderId: r.sender_id,
    senderName: unescapeOpt(r.sender_name) ?? undefined,
    text: unescapeNul(r.text),
    media: fromJsonb(r.media),
    ...(r.remote_media ? { remoteMedia: fromJsonb(r.remote_media) } : {}),
    context: unescapeOpt(r.context) ?? undefined,
    isGroup: r.is_group,
    sentAt: r.sent_at,
    receivedAt: r.received_at,
    status: r.status as InboxStatus,
    tries: r.tries,
    startedAt: r.started_at ?? undefined,
    finishedAt: r.finished_at ?? undefined,
    note: unescapeOpt(r.note) ?? undefined,
    ...(r.owner !== null && { owner: r.owner }),
    ...(r.lease_epoch !== null && { leaseEpoch: r.lease_epoch }),
  };
}

export interface InsertOptions {
  now: number;
  kind?: 'message' | 'command';
  status?: InboxStatus;
  text?: string;
  note?: string;
  /** Stored `dropped` (note `queue_full`) instead when the chat already has this many waiting. */
  maxPending?: number;
}

/**
 * Claims (channel, messageId) and stores the message in one statement; with `maxPending`, the count
 * of the chat's waiting messages decides in the same statement whether it waits or is dropped.
 * Undefined for a duplicate.
 */
export async function insertInbound(
  q: Queryable,
  msg: InboundMessage,
  opts: InsertOptions,
): Promise<{ id: number; status: InboxStatus } | undefined> {
  const chat = `${msg.channel}:${msg.chatId}`;
  const status = opts.status ?? 'pending';
  const r = await q.query<{ id: number; status: InboxStatus }>(
    `WITH s AS (
       SELECT CASE WHEN $16::int IS NOT NULL
                    AND (SELECT count(*) FROM inbox WHERE chat = $3::text AND status = 'pending') >= $16::int
                   THEN 'dropped' ELSE $13::text END AS status)
     INSERT INTO inbox (channel, message_id, chat, kind, sender_id, sender_name, text, media, context,
         is_group, sent_at, received_at, status, finished_at, note, remote_media)
     SELECT $1::text, $2::text, $3::text, $4::text, $5::text, $6::text, $7::text, $8::jsonb, $9::text,
            $10::boolean, $11::bigint, $12::bigint, s.status,
            CASE WHEN s.status IN ('done', 'failed', 'dropped') THEN $12::bigint END,
            CASE WHEN s.status = 'dropped' AND $13::text = 'pending' THEN 'queue_full' ELSE $14::text END,
            $15::jsonb
     FROM s
     ON CONFLICT (channel, message_id) DO NOTHING RETURNING id, status`,
    [
      msg.channel,
      msg.messageId,
      chat,
      opts.kind ?? 'message',
      msg.senderId,
      escapeOpt(msg.senderName),
      escapeNul(opts.text ?? msg.text),
      toJsonb(msg.media),
      escapeOpt(msg.context),
      msg.isGroup,
      msg.at,
      opts.now,
      status,
      escapeOpt(opts.note),
      msg.remoteMedia?.length ? toJsonb(msg.remoteMedia) : null,
      opts.maxPending ?? null,
    ],
  );
  return r.rows[0];
}

/** Waiting messages of one chat in arrival order. */
export async function pendingForChat(q: Queryable, chat: string, limit?: number): Promise<InboxRow[]> {
  const r = await q.query<InboxRaw>(
    `SELECT ${INBOX_COLUMNS} FROM inbox WHERE chat = $1 AND status = 'pending' ORDER BY id LIMIT $2`,
    [chat, limit ?? null],
  );
  return r.rows.map(toInboxRow);
}

/** pending → running, a try counted, owned by `owner` when given. */
export async function markRunning(
  q: Queryable,
  ids: readonly number[],
  now: number,
  owner?: { holder: string; epoch: number },
): Promise<void> {
  if (ids.length === 0) return;
  await q.query(
    `UPDATE inbox SET status = 'running', tries = tries + 1, started_at = $2, owner = $3, lease_epoch = $4
     WHERE id = ANY($1::bigint[]) AND status = 'pending'`,
    [ids, now, owner?.holder ?? null, owner?.epoch ?? null],
  );
}

export async function markFinished(
  q: Queryable,
  ids: readonly number[],
  status: 'done' | 'failed' | 'dropped',
  now: number,
  note?: string,
): Promise<void> {
  if (ids.length === 0) return;
  await q.query(`UPDATE inbox SET status = $2, finished_at = $3, note = $4 WHERE id = ANY($1::bigint[])`, [
    ids,
    status,
    now,
    escapeOpt(note),
  ]);
}

/** /stop: the chat's running messages are done, `stopped` (see store/sqlite/inbox.ts stopRunning). */
export async function stopRunning(q: Queryable, chat: string, now: number): Promise<void> {
  await q.query(
    `UPDATE inbox SET status = 'done', finished_at = $2, note = 'stopped' WHERE chat = $1 AND status = 'running'`,
    [chat, now],
  );
}

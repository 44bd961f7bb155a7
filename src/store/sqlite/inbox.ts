// Inbound messages, durable before the channel acknowledges them. The UNIQUE (channel, message_id)
// constraint is the dedupe record: it survives restarts, and an INSERT … ON CONFLICT DO NOTHING is a
// single atomic claim, so two simultaneous deliveries of one message make exactly one row.
import type { ChatKey, InboundMedia, InboundMessage, RemoteMedia } from '../../core/types.js';
import type { InboxRow, InboxStatus } from '../contract/inbox.js';
import { type Db, type Migration, prepared } from './db.js';

export type { InboxRow, InboxStatus } from '../contract/inbox.js';

export const inboxMigration: Migration = {
  module: 'inbox',
  steps: [
    `CREATE TABLE inbox (
      id INTEGER PRIMARY KEY,
      channel TEXT NOT NULL,
      message_id TEXT NOT NULL,
      chat TEXT NOT NULL,
      kind TEXT NOT NULL DEFAULT 'message' CHECK (kind IN ('message', 'command')),
      sender_id TEXT NOT NULL,
      sender_name TEXT,
      text TEXT NOT NULL,
      media TEXT NOT NULL DEFAULT '[]',
      context TEXT,
      is_group INTEGER NOT NULL DEFAULT 0,
      sent_at INTEGER NOT NULL,
      received_at INTEGER NOT NULL,
      status TEXT NOT NULL DEFAULT 'pending'
        CHECK (status IN ('pending', 'running', 'done', 'failed', 'dropped')),
      tries INTEGER NOT NULL DEFAULT 0,
      started_at INTEGER,
      finished_at INTEGER,
      note TEXT,
      UNIQUE (channel, message_id)
    );
    CREATE INDEX inbox_chat_status ON inbox (chat, status, id);`,
    // Attachments stored as links, fetched before the run (a Twilio acknowledgement must not wait
    // for downloads). NULL once fetched, or when there were none.
    'ALTER TABLE inbox ADD COLUMN remote_media TEXT;',
    // Who runs a `running` row, under which epoch of the chat's lease (store/ownership.ts): a start
    // takes over only rows whose owner's lease ended, not those another live process is running.
    `ALTER TABLE inbox ADD COLUMN owner TEXT;
    ALTER TABLE inbox ADD COLUMN lease_epoch INTEGER;
    CREATE INDEX inbox_unfinished ON inbox (status, chat);`,
  ],
};

export type InsertOutcome = { type: 'inserted'; id: number } | { type: 'duplicate' };

export interface InsertOptions {
  now: number;
  /** `command` rows are dedupe records for chat commands; they never reach the agent. */
  kind?: 'message' | 'command';
  status?: InboxStatus;
  /** Overrides the stored text (e.g. the prompt after `/new`). */
  text?: string;
  note?: string;
}

/** Claims (channel, messageId) and stores the message in one statement. */
export function insertInbound(db: Db, msg: InboundMessage, opts: InsertOptions): InsertOutcome {
  const status = opts.status ?? 'pending';
  const done = status === 'done' || status === 'failed' || status === 'dropped';
  const row = prepared(
    db,
    `INSERT INTO inbox (channel, message_id, chat, kind, sender_id, sender_name, text, media, context,
         is_group, sent_at, received_at, status, finished_at, note, remote_media)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (channel, message_id) DO NOTHING RETURNING id`,
  ).get(
    msg.channel,
    msg.messageId,
    `${msg.channel}:${msg.chatId}`,
    opts.kind ?? 'message',
    msg.senderId,
    msg.senderName ?? null,
    opts.text ?? msg.text,
    JSON.stringify(msg.media),
    msg.context ?? null,
    msg.isGroup ? 1 : 0,
    msg.at,
    opts.now,
    status,
    done ? opts.now : null,
    opts.note ?? null,
    msg.remoteMedia?.length ? JSON.stringify(msg.remoteMedia) : null,
  ) as { id: number } | undefined;
  return row ? { type: 'inserted', id: row.id } : { type: 'duplicate' };
}

const COLUMNS = `id, chat, kind, message_id, sender_id, sender_name, text, media, context, is_group, sent_at,
  received_at, status, tries, started_at, finished_at, note, remote_media, owner, lease_epoch`;

interface RawRow {
  id: number;
  chat: string;
  kind: string;
  message_id: string;
  sender_id: string;
  sender_name: string | null;
  text: string;
  media: string;
  context: string | null;
  is_group: number;
  sent_at: number;
  received_at: number;
  status: string;
  tries: number;
  started_at: number | null;
  finished_at: number | null;
  note: string | null;
  remote_media: string | null;
  owner: string | null;
  lease_epoch: number | null;
}

function toRow(r: RawRow): InboxRow {
  return {
    id: r.id,
    chat: r.chat as ChatKey,
    kind: r.kind as InboxRow['kind'],
    messageId: r.message_id,
    senderId: r.sender_id,
    senderName: r.sender_name ?? undefined,
    text: r.text,
    media: JSON.parse(r.media) as InboundMedia[],
    ...(r.remote_media ? { remoteMedia: JSON.parse(r.remote_media) as RemoteMedia[] } : {}),
    context: r.context ?? undefined,
    isGroup: r.is_group === 1,
    sentAt: r.sent_at,
    receivedAt: r.received_at,
    status: r.status as InboxStatus,
    tries: r.tries,
    startedAt: r.started_at ?? undefined,
    finishedAt: r.finished_at ?? undefined,
    note: r.note ?? undefined,
    ...(r.owner !== null && { owner: r.owner }),
    ...(r.lease_epoch !== null && { leaseEpoch: r.lease_epoch }),
  };
}

export function getInbound(db: Db, id: number): InboxRow | undefined {
  const r = prepared(db, `SELECT ${COLUMNS} FROM inbox WHERE id = ?`).get(id) as RawRow | undefined;
  return r ? toRow(r) : undefined;
}

/** The attachments of a message are fetched: they join its files, the notes its text. */
export function setFetchedMedia(db: Db, id: number, media: readonly InboundMedia[], text: string): void {
  prepared(db, 'UPDATE inbox SET media = ?, text = ?, remote_media = NULL WHERE id = ?').run(
    JSON.stringify(media),
    text,
    id,
  );
}

/** Waiting messages of one chat in arrival order (the row id is the arrival order). */
export function pendingForChat(db: Db, chat: ChatKey, limit = -1): InboxRow[] {
  const rows = prepared(
    db,
    `SELECT ${COLUMNS} FROM inbox WHERE chat = ? AND status = 'pending' ORDER BY id LIMIT ?`,
  ).all(chat, limit) as unknown as RawRow[];
  return rows.map(toRow);
}

export function countPending(db: Db, chat: ChatKey): number {
  const r = prepared(db, `SELECT count(*) AS n FROM inbox WHERE chat = ? AND status = 'pending'`).get(
    chat,
  ) as {
    n: number;
  };
  return r.n;
}

/** Every message not yet finished (pending or running), oldest first: what a start must pick up. */
export function unfinished(db: Db, chat?: ChatKey): InboxRow[] {
  const rows = (chat === undefined
    ? prepared(db, `SELECT ${COLUMNS} FROM inbox WHERE status IN ('pending', 'running') ORDER BY id`).all()
    : prepared(
        db,
        `SELECT ${COLUMNS} FROM inbox WHERE status IN ('pending', 'running') AND chat = ? ORDER BY id`,
      ).all(chat)) as unknown as RawRow[];
  return rows.map(toRow);
}

/** The chat's `running` rows (whichever process runs them): when each was claimed and who sent it. */
export function runningOf(db: Db, chat: ChatKey): { startedAt: number; senderId: string }[] {
  const rows = prepared(
    db,
    `SELECT started_at AS startedAt, sender_id AS senderId FROM inbox WHERE chat = ? AND status = 'running' ORDER BY id`,
  ).all(chat) as { startedAt: number | null; senderId: string }[];
  return rows.map((r) => ({ startedAt: r.startedAt ?? 0, senderId: r.senderId }));
}

/** pending → running; counts a try. `owner`: the process and lease epoch that runs them. */
export function markRunning(
  db: Db,
  ids: readonly number[],
  now: number,
  owner?: { holder: string; epoch: number },
): void {
  const st = prepared(
    db,
    `UPDATE inbox SET status = 'running', tries = tries + 1, started_at = ?, owner = ?, lease_epoch = ?
     WHERE id = ? AND status = 'pending'`,
  );
  for (const id of ids) st.run(now, owner?.holder ?? null, owner?.epoch ?? null, id);
}

/** Final states. `note` says why (e.g. `stopped`, `queue_full`, an error kind). */
export function markFinished(
  db: Db,
  ids: readonly number[],
  status: 'done' | 'failed' | 'dropped',
  now: number,
  note?: string,
): void {
  const st = prepared(db, `UPDATE inbox SET status = ?, finished_at = ?, note = ? WHERE id = ?`);
  for (const id of ids) st.run(status, now, note ?? null, id);
}

/**
 * /stop: the chat's running messages are done, `stopped`, in the transaction that records the
 * command. The run they belong to may still requeue them (an interrupt that came first), which then
 * finds nothing running: stopped messages never run again, whenever the run learns of the stop.
 */
export function stopRunning(db: Db, chat: ChatKey, now: number): void {
  prepared(
    db,
    `UPDATE inbox SET status = 'done', finished_at = ?, note = 'stopped' WHERE chat = ? AND status = 'running'`,
  ).run(now, chat);
}

/**
 * running → pending. `uncount` takes the try back: used when the relay itself stopped the run on
 * shutdown, which must not count as the crash that a second time marks the message failed.
 */
export function markPendingAgain(db: Db, ids: readonly number[], uncount: boolean): void {
  const st = prepared(
    db,
    `UPDATE inbox SET status = 'pending', tries = max(0, tries - ?) WHERE id = ? AND status = 'running'`,
  );
  for (const id of ids) st.run(uncount ? 1 : 0, id);
}

/** Chats with waiting messages, ordered by their oldest waiting message. */
export function chatsWithPending(db: Db): ChatKey[] {
  const rows = prepared(
    db,
    `SELECT chat, min(id) AS first FROM inbox WHERE status = 'pending' GROUP BY chat ORDER BY first`,
  ).all() as { chat: string }[];
  return rows.map((r) => r.chat as ChatKey);
}

/** Waiting messages per chat (status views). */
export function pendingByChat(db: Db): Record<string, number> {
  const rows = prepared(
    db,
    `SELECT chat, count(*) AS n FROM inbox WHERE status = 'pending' GROUP BY chat`,
  ).all() as { chat: string; n: number }[];
  return Object.fromEntries(rows.map((r) => [r.chat, r.n]));
}

// Questions a run put to its chat and is waiting on: a permission request from a warm
// agent (`approval`) or the `ask_user` tool (`question`), and the tool kinds a chat allowed for good
// ("2 allow for this chat"). Durable so that a restart can tell each chat what it never got an
// answer to (the waiting run died with the process), and so /status and /approvals read them.
//
// The answer to a question is an inbound message: it is recorded here with the message's dedupe row
// (store/inbox.ts, as a `command` row that never runs) in one transaction, so a redelivered webhook
// finds the row and answers nothing twice.
import { redactOutbound } from '../../core/outbound-redact.js';
import type { ChatKey } from '../../core/types.js';
import type { Allowance, Interaction, InteractionStatus, InteractionStore } from '../interactions.js';
import { type Db, type Migration, prepared, transaction } from './db.js';
import { insertInbound } from './inbox.js';
import { enqueueOutbound } from './outbox.js';

export type {
  Allowance,
  AnswerOutcome,
  Interaction,
  InteractionStatus,
  InteractionStore,
  NewInteraction,
  Notice,
} from '../interactions.js';

export const interactionsMigration: Migration = {
  module: 'interactions',
  steps: [
    `CREATE TABLE interactions (
      id INTEGER PRIMARY KEY,
      chat TEXT NOT NULL,
      type TEXT NOT NULL CHECK (type IN ('approval', 'question')),
      run_key TEXT NOT NULL,
      asker TEXT NOT NULL,
      tool_kind TEXT,
      text TEXT NOT NULL,
      choices TEXT,
      created_at INTEGER NOT NULL,
      shown_at INTEGER,
      expires_at INTEGER,
      status TEXT NOT NULL DEFAULT 'pending'
        CHECK (status IN ('pending', 'answered', 'expired', 'cancelled', 'restarted')),
      answer TEXT,
      closed_at INTEGER
    );
    CREATE INDEX interactions_open ON interactions (status, chat, id);
    CREATE TABLE chat_allowances (
      chat TEXT NOT NULL,
      tool_kind TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      PRIMARY KEY (chat, tool_kind)
    );`,
  ],
};

interface Row {
  id: number;
  chat: string;
  type: 'approval' | 'question';
  run_key: string;
  asker: string;
  tool_kind: string | null;
  text: string;
  choices: string | null;
  created_at: number;
  shown_at: number | null;
  expires_at: number | null;
  status: InteractionStatus;
  answer: string | null;
  closed_at: number | null;
}

const COLUMNS = `id, chat, type, run_key, asker, tool_kind, text, choices, created_at, shown_at,
  expires_at, status, answer, closed_at`;

const toInteraction = (r: Row): Interaction => ({
  id: r.id,
  chat: r.chat as ChatKey,
  type: r.type,
  runKey: r.run_key,
  asker: r.asker,
  ...(r.tool_kind !== null && { toolKind: r.tool_kind }),
  text: r.text,
  ...(r.choices !== null && { choices: JSON.parse(r.choices) as string[] }),
  createdAt: r.created_at,
  ...(r.shown_at !== null && { shownAt: r.shown_at }),
  ...(r.expires_at !== null && { expiresAt: r.expires_at }),
  status: r.status,
  ...(r.answer !== null && { answer: r.answer }),
  ...(r.closed_at !== null && { closedAt: r.closed_at }),
});

/** Sync, for callers already inside a transaction (a chat command): the chat's open ones, oldest first. */
export function openInteractions(db: Db, chat: ChatKey): Interaction[] {
  const rows = prepared(
    db,
    `SELECT ${COLUMNS} FROM interactions WHERE status = 'pending' AND chat = ? ORDER BY id`,
  ).all(chat) as unknown as Row[];
  return rows.map(toInteraction);
}

/** Sync, inside a transaction: the tool kinds the chat allowed for good. */
export function allowancesOf(db: Db, chat: ChatKey): Allowance[] {
  const rows = prepared(
    db,
    'SELECT tool_kind, created_at FROM chat_allowances WHERE chat = ? ORDER BY tool_kind',
  ).all(chat) as unknown as { tool_kind: string; created_at: number }[];
  return rows.map((r) => ({ toolKind: r.tool_kind, createdAt: r.created_at }));
}

/** Sync, inside a transaction: closes a pending one; false when it was not pending any more. */
export function closeInteraction(
  db: Db,
  id: number,
  status: Exclude<InteractionStatus, 'pending'>,
  now: number,
  answer?: string,
): boolean {
  const r = prepared(
    db,
    `UPDATE interactions SET status = ?, answer = ?, closed_at = ? WHERE id = ? AND status = 'pending'`,
  ).run(status, answer ?? null, now, id);
  return Number(r.changes) > 0;
}

/** Sync, inside a transaction: "allow for this chat" remembered for `toolKind`. */
export function rememberAllowance(db: Db, chat: ChatKey, toolKind: string, now: number): void {
  prepared(
    db,
    'INSERT INTO chat_allowances (chat, tool_kind, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
  ).run(chat, toolKind, now);
}

/** Sync, inside a transaction: forgets every allowance of the chat; how many there were. */
export function clearAllowances(db: Db, chat: ChatKey): number {
  return Number(prepared(db, 'DELETE FROM chat_allowances WHERE chat = ?').run(chat).changes);
}

export function interactionStore(db: Db): InteractionStore {
  const get = (id: number) =>
    prepared(db, `SELECT ${COLUMNS} FROM interactions WHERE id = ?`).get(id) as Row | undefined;
  return {
    allowed: async (chat, toolKind) =>
      Boolean(
        prepared(db, 'SELECT 1 FROM chat_allowances WHERE chat = ? AND tool_kind = ?').get(chat, toolKind),
      ),
    add: async (i, now) => {
      const r = prepared(
        db,
        `INSERT INTO interactions (chat, type, run_key, asker, tool_kind, text, choices, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`,
      ).get(
        i.chat,
        i.type,
        i.runKey,
        i.asker,
        i.toolKind ?? null,
        // Masked as the outbox masks what it sends: the question is shown from this row, and kept.
        redactOutbound(i.text),
        i.choices ? JSON.stringify(i.choices.map(redactOutbound)) : null,
        now,
      ) as unknown as Row;
      return toInteraction(r);
    },
    show: async (id, now, expiresAt, notice) =>
      transaction(db, () => {
        const r = prepared(
          db,
          `UPDATE interactions SET shown_at = ?, expires_at = ? WHERE id = ? AND status = 'pending' RETURNING chat`,
        ).get(now, expiresAt, id) as { chat: ChatKey } | undefined;
        if (!r) return false;
        enqueueOutbound(db, r.chat, notice.key, notice.items, now);
        return true;
      }),
    answer: async (msg, id, answer, now, reply) =>
      transaction(db, () => {
        // Checked before the message is recorded: a closed question leaves the message to be run.
        if (get(id)?.status !== 'pending') return 'closed';
        const r = insertInbound(db, msg, { now, kind: 'command', status: 'done', note: 'answer' });
        if (r.type === 'duplicate') return 'duplicate';
        closeInteraction(db, id, 'answered', now, answer);
        if (reply) enqueueOutbound(db, `${msg.channel}:${msg.chatId}`, reply.key, reply.items, now);
        return 'answered';
      }),
    swallow: async (msg, now, note, reply) =>
      transaction(db, () => {
        const r = insertInbound(db, msg, { now, kind: 'command', status: 'done', note });
        if (r.type === 'duplicate') return false;
        if (reply) enqueueOutbound(db, `${msg.channel}:${msg.chatId}`, reply.key, reply.items, now);
        return true;
      }),
    close: async (id, status, now, notice) =>
      transaction(db, () => {
        const row = get(id);
        if (!row || !closeInteraction(db, id, status, now)) return false;
        if (notice) enqueueOutbound(db, row.chat as ChatKey, notice.key, notice.items, now);
        return true;
      }),
    closeLeftOver: async (now, owns, notice) =>
      transaction(db, () => {
        const rows = prepared(
          db,
          `SELECT ${COLUMNS} FROM interactions WHERE status = 'pending' ORDER BY id`,
        ).all() as unknown as Row[];
        const closed: Interaction[] = [];
        for (const row of rows) {
          const i = toInteraction(row);
          if (!owns(i.chat)) continue;
          closeInteraction(db, i.id, 'restarted', now);
          const n = notice(i);
          enqueueOutbound(db, i.chat, n.key, n.items, now);
          closed.push({ ...i, status: 'restarted', closedAt: now });
        }
        return closed;
      }),
    pending: async (chat) => openInteractions(db, chat),
    allPending: async () =>
      (
        prepared(
          db,
          `SELECT ${COLUMNS} FROM interactions WHERE status = 'pending' ORDER BY id`,
        ).all() as unknown as Row[]
      ).map(toInteraction),
    get: async (id) => {
      const r = get(id);
      return r ? toInteraction(r) : undefined;
    },
    allowances: async (chat) => allowancesOf(db, chat),
  };
}

// Questions and approvals runs wait on, and the chats' allowances, on PostgreSQL (the rules of
// store/interactions.ts). An answer arriving as a message is recorded with the message's dedupe row
// in one transaction under the chat's lock, like any other write of the chat's messages; a notice is
// written under it too (a chat's replies are written under its lock, postgres/queue.ts). The chat's
// lock is always taken before an interaction's row, so two of these never wait on each other.
import { redactOutbound } from '../../core/outbound-redact.js';
import type { ChatKey, InboundMessage } from '../../core/types.js';
import type { Interaction, InteractionStatus, InteractionStore, Notice } from '../interactions.js';
import { call } from './call.js';
import { escapeNul, escapeOpt, fromJsonb, toJsonb, unescapeNul, unescapeOpt } from './nul.js';
import { enqueueOutbound, outboxItems } from './outbox.js';
import { chatLock, inTx, lockKey, lockMore, type Pool, type Queryable } from './pool.js';

interface Row {
  id: number;
  chat: string;
  type: 'approval' | 'question';
  run_key: string;
  asker: string;
  tool_kind: string | null;
  text: string;
  choices: string[] | null;
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
  text: unescapeNul(r.text),
  ...(r.choices !== null && { choices: fromJsonb(r.choices) }),
  createdAt: r.created_at,
  ...(r.shown_at !== null && { shownAt: r.shown_at }),
  ...(r.expires_at !== null && { expiresAt: r.expires_at }),
  status: r.status,
  ...(r.answer !== null && { answer: unescapeOpt(r.answer) ?? '' }),
  ...(r.closed_at !== null && { closedAt: r.closed_at }),
});

/** The questions' writes as one call each: an answer or a swallowed message, a question shown or closed. */
type Reply = Notice | undefined;

async function inboundAnswer(
  pool: Pool,
  msg: InboundMessage,
  id: number | null,
  now: number,
  note: string,
  answer: string | undefined,
  reply: Reply,
): Promise<'closed' | 'duplicate' | 'answered' | 'recorded'> {
  const chat = `${msg.channel}:${msg.chatId}`;
  const [r] = await call<{ r: 'closed' | 'duplicate' | 'answered' | 'recorded' }>(
    pool,
    [chatLock(chat)],
    'SELECT aw_inbound_answer($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18) AS r',
    [
      lockKey(chatLock(chat)),
      id,
      msg.channel,
      msg.messageId,
      chat,
      msg.senderId,
      escapeOpt(msg.senderName),
      escapeNul(msg.text),
      toJsonb(msg.media),
      escapeOpt(msg.context),
      msg.isGroup,
      msg.at,
      now,
      escapeOpt(note),
      msg.remoteMedia?.length ? toJsonb(msg.remoteMedia) : null,
      escapeOpt(answer),
      reply?.key ?? null,
      reply ? outboxItems(reply.items) : null,
    ],
  );
  if (!r) throw new Error('aw_inbound_answer returned no row');
  return r.r;
}

async function interactionNotice(
  pool: Pool,
  id: number,
  now: number,
  expiresAt: number | null,
  status: Exclude<InteractionStatus, 'pending'> | null,
  notice: Reply,
): Promise<boolean> {
  const [r] = await call<{ ok: boolean }>(
    pool,
    [],
    'SELECT aw_interaction_notice($1, $2, $3, $4, $5, $6) AS ok',
    [id, now, expiresAt, status, notice?.key ?? null, notice ? outboxItems(notice.items) : null],
  );
  return r?.ok === true;
}

/** Closes a pending one; its row when it was pending, undefined otherwise. */
async function closeOne(
  q: Queryable,
  id: number,
  status: Exclude<InteractionStatus, 'pending'>,
  now: number,
  answer?: string,
): Promise<Row | undefined> {
  const r = await q.query<Row>(
    `UPDATE interactions SET status = $2, answer = $3, closed_at = $4 WHERE id = $1 AND status = 'pending'
     RETURNING ${COLUMNS}`,
    [id, status, escapeOpt(answer), now],
  );
  return r.rows[0];
}

export function pgInteractionStore(pool: Pool): InteractionStore {
  const rows = async (sql: string, params: unknown[] = []) =>
    (await pool.query<Row>(sql, params)).rows.map(toInteraction);
  return {
    allowed: async (chat, toolKind) =>
      (await pool.query('SELECT 1 FROM chat_allowances WHERE chat = $1 AND tool_kind = $2', [chat, toolKind]))
        .rows.length > 0,
    add: async (i, now) => {
      const r = await pool.query<Row>(
        `INSERT INTO interactions (chat, type, run_key, asker, tool_kind, text, choices, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${COLUMNS}`,
        [
          i.chat,
          i.type,
          i.runKey,
          i.asker,
          i.toolKind ?? null,
          // Masked as the outbox masks what it sends: the question is shown from this row, and kept.
          escapeNul(redactOutbound(i.text)),
          i.choices ? toJsonb(i.choices.map(redactOutbound)) : null,
          now,
        ],
      );
      return toInteraction(r.rows[0] as Row);
    },
    // One call each (postgres/functions-writes.ts) from here to close: the same locks, in the same order.
    show: (id, now, expiresAt, notice) => interactionNotice(pool, id, now, expiresAt, null, notice),
    answer: async (msg, id, answer, now, reply) => {
      // Checked before the message is recorded: a closed question leaves the message to be run.
      const r = await inboundAnswer(pool, msg, id, now, 'answer', answer, reply);
      return r === 'recorded' ? 'answered' : r;
    },
    swallow: async (msg, now, note, reply) =>
      (await inboundAnswer(pool, msg, null, now, note, undefined, reply)) === 'recorded',
    close: (id, status, now, notice) => interactionNotice(pool, id, now, null, status, notice),
    closeLeftOver: (now, owns, notice) =>
      inTx(pool, [], async (c) => {
        const chats = await c.query<{ chat: string }>(
          "SELECT DISTINCT chat FROM interactions WHERE status = 'pending'",
        );
        await lockMore(
          c,
          chats.rows.map((r) => chatLock(r.chat)),
        );
        const open = (
          await c.query<Row>(
            `SELECT ${COLUMNS} FROM interactions WHERE status = 'pending' ORDER BY id FOR UPDATE`,
          )
        ).rows.map(toInteraction);
        const closed: Interaction[] = [];
        for (const i of open) {
          if (!owns(i.chat)) continue;
          await closeOne(c, i.id, 'restarted', now);
          const n = notice(i);
          await enqueueOutbound(c, i.chat, n.key, n.items, now);
          closed.push({ ...i, status: 'restarted', closedAt: now });
        }
        return closed;
      }),
    pending: (chat) =>
      rows(`SELECT ${COLUMNS} FROM interactions WHERE status = 'pending' AND chat = $1 ORDER BY id`, [chat]),
    allPending: () => rows(`SELECT ${COLUMNS} FROM interactions WHERE status = 'pending' ORDER BY id`),
    get: async (id) => (await rows(`SELECT ${COLUMNS} FROM interactions WHERE id = $1`, [id]))[0],
    allowances: async (chat) =>
      (
        await pool.query<{ tool_kind: string; created_at: number }>(
          'SELECT tool_kind, created_at FROM chat_allowances WHERE chat = $1 ORDER BY tool_kind',
          [chat],
        )
      ).rows.map((r) => ({ toolKind: r.tool_kind, createdAt: r.created_at })),
  };
}

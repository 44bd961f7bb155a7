// The queue's operations (store/queue-ops.ts) on PostgreSQL: messages in, runs claimed and finished.
// Each operation is one transaction. A write that reads the chat's messages or its lease first takes
// the chat's lock in the same round trip as BEGIN (postgres/pool.ts): with READ COMMITTED, every
// statement after it sees what the chat's previous lock holders committed, so the operations of one
// chat are serialised, and ids (an identity, drawn after the lock) come in the chat's arrival order.
// Callbacks (`decide`, `choose`) are pure and run inside the transaction; a retried one runs again.
import type { LeaseSeen, QueueStore } from '../queue-ops.js';
import { call } from './call.js';
import { pgClaim } from './claim.js';
import { assertFence } from './fence.js';
import {
  INBOX_COLUMNS,
  type InboxRaw,
  insertInbound,
  markFinished,
  stopRunning,
  toInboxRow,
} from './inbox.js';
import { escapeNul, escapeOpt, toJsonb } from './nul.js';
import { enqueueOutbound, firstRowId, messageRefRow, newerEdit, outboxItems } from './outbox.js';
import { chatLock, inTx, lockKey, type Pool, scopeLock } from './pool.js';
import { enqueueReply, recordRun, recover, requeueRun } from './queue-calls.js';
import { deliveryOps } from './queue-delivery.js';
import { read, written } from './result.js';
import {
  bumpGeneration,
  chatSettings,
  clearSession,
  commandSnapshot,
  keepSession,
  lockScope,
  setChatSettings,
  storedSession,
} from './sessions.js';

export function pgQueueOps(pool: Pool): QueueStore {
  const sessionLocks = (s?: { scope: string }) => (s ? [scopeLock(s.scope)] : []);
  return {
    // One call (aw_accept_inbound, postgres/functions.ts): the lock, the cap, the row and a drop's notice.
    acceptInbound: (msg, opts) =>
      written(async () => {
        const chat = `${msg.channel}:${msg.chatId}`;
        const notice = opts.dropNotice?.length ? outboxItems(opts.dropNotice) : null;
        const [r] = await call<{
          r_id: number;
          r_status: string;
          r_holder: string | null;
          r_held_until: number | null;
          r_last_holder: string | null;
          r_last_seen: number | null;
        }>(
          pool,
          [chatLock(chat)],
          'SELECT * FROM aw_accept_inbound($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)',
          [
            lockKey(chatLock(chat)),
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
            opts.now,
            msg.remoteMedia?.length ? toJsonb(msg.remoteMedia) : null,
            opts.maxPending ?? null,
            notice,
          ],
        );
        if (!r) return { type: 'duplicate' as const };
        if (r.r_status !== 'dropped') return { type: 'stored' as const, id: r.r_id, lease: leaseSeen(r) };
        return { type: 'dropped' as const, id: r.r_id, noticed: Boolean(opts.dropNotice) };
      }),

    acceptCommand: (msg, opts, decide) =>
      written(() =>
        inTx(pool, [chatLock(`${msg.channel}:${msg.chatId}`)], async (c) => {
          const chat = `${msg.channel}:${msg.chatId}`;
          const now = opts.now;
          const r =
            opts.prompt !== undefined
              ? await insertInbound(c, msg, { now, text: opts.prompt })
              : await insertInbound(c, msg, { now, kind: 'command', status: 'done', note: opts.note });
          if (!r) return { type: 'duplicate' as const };
          const { snapshot, waitingIds } = await commandSnapshot(c, chat, opts.scope, opts.defaultAgent);
          const plan = decide(snapshot);
          const locked = new Set<string>();
          const scope = async (s: string) => {
            if (!locked.has(s)) await lockScope(c, s);
            locked.add(s);
            return s;
          };
          for (const e of plan.effects) {
            if (e.type === 'clear_session') await clearSession(c, await scope(e.scope), e.agent);
            else if (e.type === 'reset_scope') await bumpGeneration(c, await scope(e.scope));
            else if (e.type === 'drop_waiting') await markFinished(c, waitingIds, 'done', now, 'stopped');
            else if (e.type === 'stop_run') await stopRunning(c, chat, now);
            else if (e.type === 'set_chat') await setChatSettings(c, chat, e.change, now);
            else if (e.type === 'cancel_task')
              await c.query('DELETE FROM agent_tasks WHERE chat = $1 AND id = $2', [chat, e.id]);
            else if (e.type === 'answer_approval') {
              const closed = await c.query(
                `UPDATE interactions SET status = 'answered', answer = $2, closed_at = $3
                 WHERE id = $1 AND status = 'pending'`,
                [e.id, e.choice, now],
              );
              if ((closed.rowCount ?? 0) > 0 && e.choice === 'allow_chat' && e.toolKind)
                await c.query(
                  'INSERT INTO chat_allowances (chat, tool_kind, created_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
                  [chat, e.toolKind, now],
                );
            } else if (e.type === 'reset_allowances')
              await c.query('DELETE FROM chat_allowances WHERE chat = $1', [chat]);
          }
          // An empty reply says nothing (an approval answer from a group member who is no approver).
          if (plan.reply) await enqueueOutbound(c, chat, `cmd:${r.id}`, opts.items(plan.reply), now);
          return { type: 'applied' as const, id: r.id, plan };
        }),
      ),

    claimNextRun: (chat, limit, now, choose, fence) =>
      written(() => pgClaim(pool, chat, limit, now, choose, fence)),

    saveFetchedMedia: (id, media, text) =>
      written(async () => {
        await pool.query('UPDATE inbox SET media = $2, text = $3, remote_media = NULL WHERE id = $1', [
          id,
          toJsonb(media),
          escapeNul(text),
        ]);
      }),

    // One call (aw_finish_run): the locks, the fence, the reply, the messages and the session.
    finishRun: (run) =>
      written(async () => {
        const s = run.session;
        await call(
          pool,
          [chatLock(run.chat), ...sessionLocks(s)],
          `SELECT aw_finish_run($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)`,
          [
            lockKey(chatLock(run.chat)),
            s ? lockKey(scopeLock(s.scope)) : null,
            run.chat,
            run.fence?.holder ?? null,
            run.fence?.epoch ?? null,
            run.reply?.key ?? null,
            run.reply ? outboxItems(run.reply.items) : null,
            run.ids,
            run.status,
            run.now,
            escapeOpt(run.note),
            s?.scope ?? null,
            s?.agent ?? null,
            s?.id ?? null,
            s?.generation ?? null,
            s?.confirmed ?? null,
            s?.touch ?? null,
          ],
          run.fence,
        );
      }),

    // One call each (postgres/queue-calls.ts) from here to enqueueForChat.
    requeueRun: (ids, now, session, fence) => written(() => requeueRun(pool, ids, now, session, fence)),

    // Under the chat's lock like every write of the chat's replies: a chat's chunks go out in id
    // order, so ids must be drawn in the order the writes commit. A fence of another chat is refused.
    enqueueReply: (chat, key, items, now, fence) =>
      written(() => enqueueReply(pool, chat, key, items, now, fence, chat)),

    // Under the target chat's lock, for its id order; fenced by the writer's lease of its own chat
    // (read FOR SHARE), the one lease the writing run holds.
    enqueueForChat: (chat, key, items, now, writer) =>
      written(() => enqueueReply(pool, chat, key, items, now, writer, writer?.chat)),
    outboxIdOf: (key) => read(() => firstRowId(pool, key)),
    newerEditPending: (row, keyPrefix) => read(() => newerEdit(pool, row, keyPrefix)),
    messageRef: (ref) => read(() => messageRefRow(pool, ref)),

    message: (id) =>
      read(async () => {
        const r = await pool.query<InboxRaw>(`SELECT ${INBOX_COLUMNS} FROM inbox WHERE id = $1`, [id]);
        return r.rows[0] && toInboxRow(r.rows[0]);
      }),

    recordRun: (record) => written(() => recordRun(pool, record)),

    unfinished: (chat) =>
      read(async () => {
        const r = await pool.query<InboxRaw>(
          `SELECT ${INBOX_COLUMNS} FROM inbox WHERE status IN ('pending', 'running')
             AND ($1::text IS NULL OR chat = $1::text) ORDER BY id`,
          [chat ?? null],
        );
        return r.rows.map(toInboxRow);
      }),

    recover: (plan) => written(() => recover(pool, plan)),

    chatSettings: (chat) => read(() => chatSettings(pool, chat)),
    session: (scope, agent) => read(() => storedSession(pool, scope, agent)),
    keepSession: (session, now, fence) =>
      written(() =>
        inTx(pool, [...(fence ? [chatLock(fence.chat)] : []), scopeLock(session.scope)], async (c) => {
          await assertFence(c, fence);
          await keepSession(c, session, now);
        }),
      ),
    forgetSession: (scope, agent) =>
      written(async () => {
        await clearSession(pool, scope, agent);
      }),

    ...deliveryOps(pool),
  };
}

/** The chat's lease as aw_accept_inbound read it with the stored row. */
function leaseSeen(r: {
  r_holder: string | null;
  r_held_until: number | null;
  r_last_holder: string | null;
  r_last_seen: number | null;
}): LeaseSeen {
  if (r.r_holder) return { type: 'held', holder: r.r_holder, until: Number(r.r_held_until ?? 0) };
  if (r.r_last_holder)
    return {
      type: 'free',
      last: { holder: r.r_last_holder, lastSeen: r.r_last_seen === null ? undefined : Number(r.r_last_seen) },
    };
  return { type: 'free' };
}

// The queue's store operations (store/queue-ops.ts) on SQLite. Each operation is one transaction
// (BEGIN IMMEDIATE); node:sqlite runs it at call time and returns a settled Promise.

import { deferredPort, deferredWanted } from '../deferred.js';
import { storeFailure } from '../errors.js';
import type { KeptSession, QueueStore } from '../queue-ops.js';
import { type Db, readTransaction, transaction } from './db.js';
import {
  countPending,
  getInbound,
  insertInbound,
  markFinished,
  markPendingAgain,
  markRunning,
  pendingByChat,
  pendingForChat,
  runningOf,
  setFetchedMedia,
  stopRunning,
  unfinished,
} from './inbox.js';
import {
  allowancesOf,
  clearAllowances,
  closeInteraction,
  openInteractions,
  rememberAllowance,
} from './interactions.js';
import {
  chatsWithUnsent,
  countUnsent,
  enqueueExpiryNotice,
  enqueueOutbound,
  firstRowId,
  markAttempt,
  markAttemptFailed,
  markExpired,
  markFailed,
  markSent,
  markSentFenced,
  messageRefRow,
  newerEdit,
  nextPending,
  sentProviderIds,
} from './outbox.js';
import { assertFence, outboxChat } from './ownership-sqlite.js';
import { written } from './result.js';
import { recordRun } from './runs.js';
import {
  bumpGeneration,
  clearSession,
  getChatSettings,
  getSession,
  saveSession,
  sessionGeneration,
  setChatSettings,
} from './sessions.js';
import { guarded } from './sqlite-errors.js';
import { deleteTask, tasksForChat } from './tasks.js';

/**
 * The queue's port over `db`. Guarded like every other port: whatever node:sqlite throws leaves as a
 * StoreError (a read's rejection, made by `guarded`) or a `Written` refusal (a write's value, made by
 * `written`), never as its own error.
 */
export function sqliteQueueOps(db: Db): QueueStore {
  return guarded(queueOps(db));
}

/** The queue's port over `db` as tests open it: deferred when the test run asks for that engine. */
export function sqliteQueueStore(db: Db): QueueStore {
  const port = sqliteQueueOps(db);
  return deferredWanted() ? deferredPort(port) : port;
}

function queueOps(db: Db): QueueStore {
  // A fenced write reads the lease and writes in one transaction; an unfenced one stays one statement.
  const fenced = <T>(fence: unknown, fn: () => T): T => (fence ? transaction(db, fn) : fn());
  // Kept only in the generation the run started in: a /new committed meanwhile wins.
  const keep = (s: KeptSession | undefined, now: number) => {
    if (s && sessionGeneration(db, s.scope) === s.generation)
      saveSession(db, s.scope, s.agent, s.id, now, s.touch, s.confirmed);
  };
  return {
    acceptInbound: (msg, opts) =>
      written(() =>
        transaction(db, () => {
          const chat = `${msg.channel}:${msg.chatId}` as const;
          if (countPending(db, chat) < opts.maxPending) {
            const r = insertInbound(db, msg, { now: opts.now });
            return r.type === 'inserted' ? { type: 'stored', id: r.id } : r;
          }
          const r = insertInbound(db, msg, { now: opts.now, status: 'dropped', note: 'queue_full' });
          if (r.type === 'duplicate') return r;
          if (opts.dropNotice) enqueueOutbound(db, chat, `drop:${r.id}`, opts.dropNotice, opts.now);
          return { type: 'dropped', id: r.id, noticed: Boolean(opts.dropNotice) };
        }),
      ),

    acceptCommand: (msg, opts, decide) =>
      written(() =>
        transaction(db, () => {
          const chat = `${msg.channel}:${msg.chatId}` as const;
          const now = opts.now;
          const r =
            opts.prompt !== undefined
              ? insertInbound(db, msg, { now, text: opts.prompt })
              : insertInbound(db, msg, { now, kind: 'command', status: 'done', note: opts.note });
          if (r.type === 'duplicate') return r;
          const settings = getChatSettings(db, chat);
          const waiting = pendingForChat(db, chat);
          const plan = decide({
            settings,
            session: getSession(db, opts.scope, settings.agent ?? opts.defaultAgent),
            waiting: waiting.length,
            tasks: tasksForChat(db, chat),
            pending: openInteractions(db, chat),
            allowances: allowancesOf(db, chat).map((a) => a.toolKind),
            running: runningOf(db, chat),
          });
          for (const e of plan.effects) {
            if (e.type === 'clear_session') clearSession(db, e.scope as KeptSession['scope'], e.agent);
            else if (e.type === 'reset_scope') bumpGeneration(db, e.scope as KeptSession['scope']);
            else if (e.type === 'drop_waiting')
              markFinished(
                db,
                waiting.map((w) => w.id),
                'done',
                now,
                'stopped',
              );
            else if (e.type === 'stop_run') stopRunning(db, chat, now);
            else if (e.type === 'set_chat') setChatSettings(db, chat, e.change, now);
            else if (e.type === 'cancel_task') deleteTask(db, chat, e.id);
            else if (e.type === 'answer_approval') {
              if (
                closeInteraction(db, e.id, 'answered', now, e.choice) &&
                e.choice === 'allow_chat' &&
                e.toolKind
              )
                rememberAllowance(db, chat, e.toolKind, now);
            } else if (e.type === 'reset_allowances') clearAllowances(db, chat);
          }
          // An empty reply says nothing (an approval answer from a group member who is no approver).
          if (plan.reply) enqueueOutbound(db, chat, `cmd:${r.id}`, opts.items(plan.reply), now);
          return { type: 'applied', id: r.id, plan };
        }),
      ),

    claimNextRun: (chat, limit, now, choose, fence) =>
      written(() =>
        transaction(db, () => {
          assertFence(db, fence);
          const waiting = pendingForChat(db, chat, limit);
          if (waiting.length === 0) return undefined;
          const plan = choose(waiting);
          const rows = waiting.slice(0, plan.count);
          markRunning(
            db,
            rows.map((r) => r.id),
            now,
            fence,
          );
          const owned = fence ? { owner: fence.holder, leaseEpoch: fence.epoch } : {};
          return {
            rows: rows.map((r) => ({
              ...r,
              ...owned,
              status: 'running' as const,
              tries: r.tries + 1,
              startedAt: now,
            })),
            plan,
          };
        }),
      ),

    saveFetchedMedia: (id, media, text) => written(() => setFetchedMedia(db, id, media, text)),

    finishRun: (run) =>
      written(() =>
        transaction(db, () => {
          assertFence(db, run.fence);
          if (run.reply) enqueueOutbound(db, run.chat, run.reply.key, run.reply.items, run.now);
          markFinished(db, run.ids, run.status, run.now, run.note);
          keep(run.session, run.now);
        }),
      ),

    requeueRun: (ids, now, session, fence) =>
      written(() =>
        transaction(db, () => {
          assertFence(db, fence);
          markPendingAgain(db, ids, true);
          keep(session, now);
        }),
      ),

    enqueueReply: (chat, key, items, now, fence) =>
      written(() =>
        fenced(fence, () => {
          assertFence(db, fence, chat);
          return enqueueOutbound(db, chat, key, items, now);
        }),
      ),

    enqueueForChat: (chat, key, items, now, writer) =>
      written(() =>
        fenced(writer, () => {
          assertFence(db, writer);
          return enqueueOutbound(db, chat, key, items, now);
        }),
      ),
    outboxIdOf: async (key) => firstRowId(db, key),
    messageRef: async (ref) => messageRefRow(db, ref),
    message: async (id) => getInbound(db, id),
    recordRun: async (record) => {
      const r = recordRun(db, record);
      return r.ok ? { ok: true, value: undefined } : storeFailure('other', r.error);
    },

    unfinished: async (chat) => unfinished(db, chat),

    recover: (plan) =>
      written(() =>
        transaction(db, () => {
          for (const fence of plan.fences ?? []) assertFence(db, fence);
          markPendingAgain(db, plan.requeue, false);
          for (const [chat, ids] of plan.fail) {
            markFinished(db, ids, 'failed', plan.now, 'crashed_twice');
            enqueueOutbound(db, chat, `crash:${ids[0]}`, plan.notice, plan.now);
          }
        }),
      ),

    chatSettings: async (chat) => getChatSettings(db, chat),
    session: async (scope, agent) =>
      readTransaction(db, () => ({
        row: getSession(db, scope, agent),
        generation: sessionGeneration(db, scope),
      })),
    keepSession: (session, now, fence) =>
      written(() =>
        fenced(fence, () => {
          assertFence(db, fence);
          keep(session, now);
        }),
      ),
    forgetSession: (scope, agent) =>
      written(() => {
        clearSession(db, scope, agent);
      }),

    countPending: async (chat) => countPending(db, chat),
    pendingByChat: async () => pendingByChat(db),
    countUnsent: async () => countUnsent(db),

    chatsWithUnsent: async () => chatsWithUnsent(db),
    nextUnsent: async (chat) => nextPending(db, chat),
    newerEditPending: async (row, keyPrefix) => newerEdit(db, row, keyPrefix),
    sentProviderIds: async (chat, since) => sentProviderIds(db, chat, since),
    markChunkAttempt: (id, now) => written(() => markAttempt(db, id, now)),
    markChunkSent: (id, now, providerId, fence) =>
      written(() => {
        if (!fence) return markSent(db, id, now, providerId);
        if (markSentFenced(db, id, now, providerId, fence)) return;
        // Nothing marked: the same write the long way, which refuses it with the lease's reason.
        transaction(db, () => {
          assertFence(db, fence, outboxChat(db, id));
          markSent(db, id, now, providerId);
        });
      }),
    markChunkRetry: (id, error, nextAt) => written(() => markAttemptFailed(db, id, error, nextAt)),
    expireChunk: (row, error, now, notice) =>
      written(() =>
        transaction(db, () => {
          markExpired(db, row.id, error, now);
          return enqueueExpiryNotice(db, row.chat, notice, now);
        }),
      ),
    failChunk: (row, error, now, notice) =>
      written(() =>
        transaction(db, () => {
          markFailed(db, row.id, error);
          if (notice)
            enqueueOutbound(
              db,
              row.chat,
              `${row.key}:failed:${row.idx}`,
              [{ type: 'text', text: notice }],
              now,
            );
        }),
      ),
  };
}

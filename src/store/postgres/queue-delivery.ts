// The queue's delivery operations and counts (store/queue-ops.ts) on PostgreSQL: reply chunks go out
// one at a time per chat, in the order they were written. Each is one statement or one function call
// (its own transaction), except the two that write a notice with the chunk's end.
import type { QueryResultRow } from 'pg';
import type { ChatKey } from '../../core/types.js';
import type { QueueStore } from '../queue-ops.js';
import { call } from './call.js';
import { escapeNul } from './nul.js';
import {
  enqueueExpiryNotice,
  enqueueOutbound,
  OUTBOX_COLUMNS,
  type OutboxRaw,
  toOutboxRow,
} from './outbox.js';
import { chatLock, inTx, type Pool } from './pool.js';
import { read, written } from './result.js';

type Delivery = Pick<
  QueueStore,
  | 'countPending'
  | 'pendingByChat'
  | 'countUnsent'
  | 'chatsWithUnsent'
  | 'nextUnsent'
  | 'sentProviderIds'
  | 'markChunkAttempt'
  | 'markChunkSent'
  | 'markChunkRetry'
  | 'expireChunk'
  | 'failChunk'
>;

export function deliveryOps(pool: Pool): Delivery {
  const rows = async <T extends object>(sql: string, params: unknown[] = []) =>
    (await pool.query<T & QueryResultRow>(sql, params)).rows;
  return {
    countPending: (chat) =>
      read(async () => {
        const [r] = await rows<{ n: number }>(
          `SELECT count(*) AS n FROM inbox WHERE chat = $1 AND status = 'pending'`,
          [chat],
        );
        return r?.n ?? 0;
      }),
    pendingByChat: () =>
      read(async () => {
        const r = await rows<{ chat: string; n: number }>(
          `SELECT chat, count(*) AS n FROM inbox WHERE status = 'pending' GROUP BY chat`,
        );
        return Object.fromEntries(r.map((x) => [x.chat, x.n]));
      }),
    countUnsent: () =>
      read(async () => {
        const [r] = await rows<{ n: number }>(`SELECT count(*) AS n FROM outbox WHERE status = 'pending'`);
        return r?.n ?? 0;
      }),

    chatsWithUnsent: () =>
      read(async () =>
        (
          await rows<{ chat: ChatKey }>(
            `SELECT chat FROM outbox WHERE status = 'pending' GROUP BY chat ORDER BY min(id)`,
          )
        ).map((r) => r.chat),
      ),
    nextUnsent: (chat) =>
      read(async () => {
        const [r] = await rows<OutboxRaw>(
          `SELECT ${OUTBOX_COLUMNS} FROM outbox WHERE chat = $1 AND status = 'pending' ORDER BY id LIMIT 1`,
          [chat],
        );
        return r && toOutboxRow(r);
      }),
    sentProviderIds: (chat, since) =>
      read(async () =>
        (
          await rows<{ provider_id: string }>(
            `SELECT provider_id FROM outbox
             WHERE chat = $1 AND status = 'sent' AND sent_at >= $2 AND provider_id IS NOT NULL`,
            [chat, since],
          )
        ).map((r) => r.provider_id),
      ),
    markChunkAttempt: (id, now) =>
      written(async () => {
        await pool.query('UPDATE outbox SET attempt_at = coalesce(attempt_at, $2) WHERE id = $1', [id, now]);
      }),
    markChunkSent: (id, now, providerId, fence) =>
      written(async () => {
        const mark = `UPDATE outbox SET status = 'sent', sent_at = $2, provider_id = $3, tries = tries + 1 WHERE id = $1`;
        if (!fence) {
          await pool.query(mark, [id, now, providerId ?? null]);
          return;
        }
        // One call (aw_mark_sent): the chunk's chat, its lease checked FOR SHARE, the mark.
        await call(
          pool,
          [],
          'SELECT aw_mark_sent($1, $2, $3, $4, $5, $6)',
          [id, now, providerId ?? null, fence.chat, fence.holder, fence.epoch],
          fence,
        );
      }),
    markChunkRetry: (id, error, nextAt) =>
      written(async () => {
        const [r] = await rows<{ tries: number }>(
          'UPDATE outbox SET tries = tries + 1, error = $2, next_at = $3 WHERE id = $1 RETURNING tries',
          [id, escapeNul(error), nextAt],
        );
        return r?.tries ?? 0;
      }),
    expireChunk: (row, error, now, notice) =>
      written(() =>
        // The chat's lock: two chunks expiring at once write one notice, not two.
        inTx(pool, [chatLock(row.chat)], async (c) => {
          await c.query(
            `UPDATE outbox SET status = 'failed', tries = tries + 1, error = $2, expired_at = $3 WHERE id = $1`,
            [row.id, escapeNul(error), now],
          );
          return enqueueExpiryNotice(c, row.chat, notice, now);
        }),
      ),
    failChunk: (row, error, now, notice) =>
      written(() =>
        inTx(pool, [chatLock(row.chat)], async (c) => {
          await c.query(`UPDATE outbox SET status = 'failed', tries = tries + 1, error = $2 WHERE id = $1`, [
            row.id,
            escapeNul(error),
          ]);
          if (notice)
            await enqueueOutbound(
              c,
              row.chat,
              `${row.key}:failed:${row.idx}`,
              [{ type: 'text', text: notice }],
              now,
            );
        }),
      ),
  };
}

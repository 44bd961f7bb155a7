// claimNextRun on PostgreSQL in two round trips instead of five (BEGIN with the lock, the fence, the
// read, the update, COMMIT): the chat's waiting messages are read under the fence (aw_claim_read),
// the caller's pure `choose` decides, and aw_claim writes the choice under the chat's lock and fence
// only if the chat's first waiting messages are still the ones `choose` saw. The same outcome as
// reading and writing under one lock: the write happens in a state the choice was made on. When
// another process changed them between (a message arrived, a /stop), it is read and chosen again; after
// a few such races the old way (one transaction holding the lock throughout) settles it.
import type { ChatKey } from '../../core/types.js';
import type { InboxRow } from '../contract/inbox.js';
import type { Fence } from '../ownership.js';
import { callNow } from './call.js';
import { assertFence } from './fence.js';
import { type InboxRaw, markRunning, pendingForChat, toInboxRow } from './inbox.js';
import { chatLock, inOrder, inTxUnordered, lockKey, type Pool } from './pool.js';

const OPTIMISTIC_TRIES = 3;

type Claimed<P> = { rows: InboxRow[]; plan: P } | undefined;

function claimedRows(rows: InboxRow[], now: number, fence: Fence | undefined): InboxRow[] {
  const owned = fence ? { owner: fence.holder, leaseEpoch: fence.epoch } : {};
  return rows.map((r) => ({
    ...r,
    ...owned,
    status: 'running' as const,
    tries: r.tries + 1,
    startedAt: now,
  }));
}

export function pgClaim<P extends { count: number }>(
  pool: Pool,
  chat: ChatKey,
  limit: number,
  now: number,
  choose: (waiting: readonly InboxRow[]) => P,
  fence: Fence | undefined,
): Promise<Claimed<P>> {
  return inOrder(pool, [chatLock(chat)], async () => {
    const holder = fence?.holder ?? null;
    const epoch = fence?.epoch ?? null;
    for (let i = 0; i < OPTIMISTIC_TRIES; i++) {
      const raw = await callNow<InboxRaw>(
        pool,
        'SELECT * FROM aw_claim_read($1, $2, $3, $4)',
        [chat, limit, holder, epoch],
        fence,
      );
      const waiting = raw.map(toInboxRow);
      if (waiting.length === 0) return undefined;
      const plan = choose(waiting);
      const rows = waiting.slice(0, plan.count);
      const [done] = await callNow<{ ok: boolean }>(
        pool,
        'SELECT aw_claim($1, $2, $3, $4, $5, $6, $7, $8) AS ok',
        [
          lockKey(chatLock(chat)),
          chat,
          waiting.map((w) => w.id),
          limit,
          rows.map((r) => r.id),
          now,
          holder,
          epoch,
        ],
        fence,
      );
      if (done?.ok) return { rows: claimedRows(rows, now, fence), plan };
    }
    return inTxUnordered(pool, [chatLock(chat)], async (c) => {
      await assertFence(c, fence);
      const waiting = await pendingForChat(c, chat, limit);
      if (waiting.length === 0) return undefined;
      const plan = choose(waiting);
      const rows = waiting.slice(0, plan.count);
      await markRunning(
        c,
        rows.map((r) => r.id),
        now,
        fence,
      );
      return { rows: claimedRows(rows, now, fence), plan };
    });
  });
}

// Fencing on PostgreSQL, inside the transaction of a run-side write: the chat's lease row is read
// FOR SHARE, so a process taking the lease over (an UPDATE of that row) waits until this write has
// committed or rolled back. A write that passed the check therefore lands before the lease moves, and
// every write after the move carries an epoch the check refuses (store/ownership.ts says why epochs).
import { type Fence, FenceConflict } from '../ownership.js';
import type { Queryable } from './pool.js';

/** Throws FenceConflict unless `fence` is the chat's lease (holder and epoch; the expiry does not count). */
export async function assertFence(
  q: Queryable,
  fence: Fence | undefined,
  chat: string = fence?.chat ?? '',
): Promise<void> {
  if (!fence) return;
  // A fence of another chat is no fence for this one.
  if (chat !== fence.chat) throw new FenceConflict(fence, undefined);
  const r = await q.query<{ holder: string | null; epoch: number }>(
    'SELECT holder, epoch FROM chat_leases WHERE chat = $1 FOR SHARE',
    [fence.chat],
  );
  const row = r.rows[0];
  if (row?.holder !== fence.holder || row.epoch !== fence.epoch) throw new FenceConflict(fence, row);
}

/**
 * Throws FenceConflict unless `fence` (its `chat` is the leader lease's name) is still that leader
 * lease: a scheduler's job-state save, inside its transaction. The row is read FOR SHARE, as above,
 * so a takeover waits for the save and every save after it is refused.
 */
export async function assertLeader(q: Queryable, fence: Fence | undefined): Promise<void> {
  if (!fence) return;
  const r = await q.query<{ holder: string | null; epoch: number }>(
    'SELECT holder, epoch FROM leader_leases WHERE name = $1 FOR SHARE',
    [fence.chat],
  );
  const row = r.rows[0];
  if (row?.holder !== fence.holder || row.epoch !== fence.epoch) throw new FenceConflict(fence, row);
}

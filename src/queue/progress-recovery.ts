// A status message whose run died with the relay must not say "running…" forever: when the run's
// messages are recovered (at start, or when a chat's lease is taken over), each one's status message,
// if it had one, gets a last edit saying it was interrupted. Keyed, so a second recovery adds none.
// Best effort: a store that refuses it costs the line, never the recovery.
import type { InboxRow } from '../store/contract/inbox.js';
import type { Fence } from '../store/ownership.js';
import type { QueueStore } from '../store/queue-ops.js';
import { INTERRUPTED_TEXT, statusKey } from './progress-outbox.js';

/** Returns how many status messages were told; `rows` are the interrupted (`running`) ones. */
export async function interruptStatuses(
  store: Pick<QueueStore, 'enqueueReply' | 'outboxIdOf'>,
  rows: readonly InboxRow[],
  now: number,
  fence?: Fence,
): Promise<number> {
  let told = 0;
  for (const row of rows) {
    if (row.status !== 'running') continue;
    // The run that died claimed the row last: its attempt is the row's try count.
    const key = statusKey(row.id, row.tries);
    try {
      const id = await store.outboxIdOf(key);
      if (id === undefined) continue;
      const item = { type: 'edit', ref: `out:${id}`, text: INTERRUPTED_TEXT } as const;
      const w = await store.enqueueReply(row.chat, `${key}:interrupted`, [item], now, fence);
      if (w.ok && w.value > 0) told += 1;
    } catch {
      // A read that failed: the line stays as it was; the recovery itself goes on.
    }
  }
  return told;
}

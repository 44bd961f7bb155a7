// What a start does with work a previous process left behind. A message still `running` means that
// process died mid-run: it is run again once; if it already had its second try, it is marked failed
// and its chat is told, so a message that crashes the relay cannot crash it forever.
import { NOTICE } from '../core/reply.js';
import type { ChatKey } from '../core/types.js';
import type { InboxRow } from '../store/contract/inbox.js';
import type { Fence } from '../store/ownership.js';
import type { QueueStore } from '../store/queue-ops.js';
import { unwrap } from './persist.js';
import { interruptStatuses } from './progress-recovery.js';

/** Runs a message may start before a crash during the last one gives up on it. */
export const MAX_TRIES = 2;

export interface RecoveryPlan {
  /** Interrupted runs to queue again. */
  requeue: number[];
  /** Interrupted runs that already had their second try, by chat. */
  fail: Map<ChatKey, number[]>;
  /** Chats with waiting work after the plan is applied, oldest first. */
  ready: ChatKey[];
}

/** Pure: decides from the unfinished rows (oldest first) of the chats this process serves. */
export function planRecovery(rows: readonly InboxRow[]): RecoveryPlan {
  const plan: RecoveryPlan = { requeue: [], fail: new Map(), ready: [] };
  const ready = new Set<ChatKey>();
  for (const row of rows) {
    if (row.status === 'running' && row.tries >= MAX_TRIES) {
      plan.fail.set(row.chat, [...(plan.fail.get(row.chat) ?? []), row.id]);
      continue;
    }
    if (row.status === 'running') plan.requeue.push(row.id);
    ready.add(row.chat);
  }
  plan.ready = [...ready];
  return plan;
}

/** Applies the plan for chats `serves` accepts; returns the chats with work to run. */
export async function recover(
  store: QueueStore,
  serves: (chat: ChatKey) => boolean,
  now: number,
): Promise<RecoveryPlan> {
  const rows = (await store.unfinished()).filter((r) => serves(r.chat));
  const plan = planRecovery(rows);
  // Before the rows wait again: a rerun's status message is a new one, the dead one says so.
  await interruptStatuses(store, rows, now);
  unwrap(
    await store.recover({
      now,
      requeue: plan.requeue,
      fail: plan.fail,
      notice: [{ type: 'text', text: NOTICE.crashedTwice }],
    }),
  );
  return plan;
}

/** What a queue needs of the chat leases (queue/process-owner.ts) to recover one chat. */
export interface ChatRecovery {
  store: QueueStore;
  now: number;
  /** Closes what the previous holder's runs still waited on (queue/interactions.ts `start`). */
  closeLeftOver?: (owns: (chat: ChatKey) => boolean) => Promise<void>;
}

/**
 * A chat whose lease this process just took from another holder (or found free): what that holder
 * left running is queued again (or failed after its second try), under `fence`, so a holder that
 * took the lease in between makes the whole write refused. Returns whether anything was recovered.
 */
export async function recoverChat(d: ChatRecovery, chat: ChatKey, fence: Fence): Promise<boolean> {
  // The chat's own rows only: this runs at each fresh take of a lease (every run of a chat that went
  // idle), where reading every chat's rows cost the relay CPU and heap per message.
  const rows = (await d.store.unfinished(chat)).filter((r) => r.status === 'running');
  if (rows.length > 0) {
    const plan = planRecovery(rows);
    await interruptStatuses(d.store, rows, d.now, fence);
    unwrap(
      await d.store.recover({
        now: d.now,
        requeue: plan.requeue,
        fail: plan.fail,
        notice: [{ type: 'text', text: NOTICE.crashedTwice }],
        fences: [fence],
      }),
    );
  }
  await d.closeLeftOver?.((c) => c === chat);
  return rows.length > 0;
}

// The queue's side of the warm pool. `nextReady`: the chat a free slot runs next (queue/affinity.ts
// decides). `warmDemand`: the queue's work as the warm pool needs it (drivers/pool-room.ts `WarmDemand`): which lanes' chats
// have work waiting or under way, so their processes are not closed to make room, and since when.
// A chat counts from the moment it is ready until its run's follow-up is decided (`settling`): the
// process's turn ends before the queue knows whether more waits, and closing it in that gap is the
// thrash this prevents.
import type { Config } from '../config/schema.js';
import type { ChatKey } from '../core/types.js';
import { GLOBAL_SCOPE, scopeFor } from '../store/contract/sessions.js';
import { nextChat } from './affinity.js';
import type { WarmDemand, WarmPort } from './ports.js';
import type { RunSlots } from './run-slots.js';

/** The ready chat to run next: one whose warm process is live first, within the fair wait. */
export function nextReady(
  runSlots: RunSlots,
  warm: WarmPort | undefined,
  config: Pick<Config, 'agents' | 'sessions'>,
  now: number,
): ChatKey | undefined {
  const live = warm?.live?.bind(warm);
  if (!live) return undefined;
  const ready = runSlots
    .readyList()
    .map((r) => ({ ...r, live: live(scopeFor(r.chat, config.sessions.scope)) }));
  return nextChat(ready, now, config.agents.warm.fairWaitSeconds * 1000);
}

/** Chats whose run's follow-up is not decided yet, counted (a run's follow-up may overlap the next's). */
export class Settling {
  private readonly n = new Map<ChatKey, number>();
  get size(): number {
    return this.n.size;
  }
  has(chat: ChatKey): boolean {
    return this.n.has(chat);
  }
  add(chat: ChatKey): void {
    this.n.set(chat, (this.n.get(chat) ?? 0) + 1);
  }
  done(chat: ChatKey): void {
    const left = (this.n.get(chat) ?? 1) - 1;
    if (left > 0) this.n.set(chat, left);
    else this.n.delete(chat);
  }
}

export function warmDemand(
  runSlots: RunSlots,
  settling: Pick<Settling, 'has' | 'size'>,
  scope: 'per-chat' | 'global',
): WarmDemand {
  return {
    wanted(lane) {
      // One global session: its one process serves every chat.
      if (scope === 'global' || lane === GLOBAL_SCOPE)
        return (
          lane === GLOBAL_SCOPE &&
          (runSlots.readyCount() > 0 || runSlots.activeCount > 0 || settling.size > 0)
        );
      const chat = lane as ChatKey;
      return runSlots.isReady(chat) || runSlots.get(chat) !== undefined || settling.has(chat);
    },
    since(lane) {
      return lane === GLOBAL_SCOPE ? undefined : runSlots.waitingSince(lane as ChatKey);
    },
  };
}

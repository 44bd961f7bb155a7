// Which ready chat gets a free run slot (pure; test/queue/affinity.test.ts). A chat whose warm
// process is live goes first: its turn needs no start, and a start (a CLI's seconds of CPU) for a
// chat that could have waited would only close another chat's process, whose next turn would start
// one again. No chat waits more than `fairWaitMs` for that: past it, the longest waiting goes first.
import type { ChatKey } from '../core/types.js';

export interface ReadyChat {
  chat: ChatKey;
  /** Since when its work has waited for a slot. */
  since: number;
  /** Its warm process is live (no start needed). */
  live: boolean;
}

/** `ready` is in the order the chats became ready (longest waiting first). */
export function nextChat(ready: readonly ReadyChat[], now: number, fairWaitMs: number): ChatKey | undefined {
  const first = ready[0];
  if (!first) return undefined;
  if (first.live || now - first.since >= fairWaitMs) return first.chat;
  return (ready.find((r) => r.live) ?? first).chat;
}

// The queue store as the agent's tools see it: a tool's send (`send_message`, `send_file`, an edit) is a write
// of the run that asked for it, so it carries the chat's lease this process holds, and is refused
// once that lease moved (this process was paused or cut off past it, and another answers the chat).
import type { QueueStore } from '../store/queue-ops.js';
import type { ProcessOwner } from './process-owner.js';

export type ToolQueueStore = Pick<
  QueueStore,
  'enqueueReply' | 'enqueueForChat' | 'message' | 'outboxIdOf' | 'messageRef'
>;

export function fencedReplies(
  store: ToolQueueStore,
  owner: Pick<ProcessOwner, 'fence' | 'id'>,
): ToolQueueStore {
  return {
    message: (id) => store.message(id),
    // Fenced by the writing run's own lease, which the tool passes (a run of a leased process has one).
    enqueueForChat: (chat, key, items, now, writer) => store.enqueueForChat(chat, key, items, now, writer),
    outboxIdOf: (key) => store.outboxIdOf(key),
    messageRef: (ref) => store.messageRef(ref),
    enqueueReply: (chat, key, items, now, fence) =>
      // No lease held for the chat: epoch 0 is never granted, so the write is refused, not unfenced.
      store.enqueueReply(
        chat,
        key,
        items,
        now,
        fence ?? owner.fence(chat) ?? { chat, holder: owner.id, epoch: 0 },
      ),
  };
}

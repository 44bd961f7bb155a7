// A message (not a command) into the inbox: deduped, or dropped past the chat's cap with the one
// overflow notice, in one store operation. What runs it is the queue's business once it is stored.
import type { InboundOutcome } from '../channels/types.js';
import { NOTICE } from '../core/reply.js';
import type { ChatKey, InboundMessage, OutboundItem } from '../core/types.js';
import type { Logger } from '../log.js';
import { maskId } from '../log.js';
import type { LeaseSeen, QueueStore } from '../store/queue-ops.js';
import { unwrap } from './persist.js';
import type { Clock } from './ports.js';
import type { RunSlots } from './run-slots.js';

export interface AcceptDeps {
  store: QueueStore;
  runSlots: RunSlots;
  log: Logger;
  now: Clock;
  maxPendingPerChat: number;
  textItems: (chat: ChatKey, text: string) => OutboundItem[];
  kick: (chat: ChatKey) => void;
}

/** `lease`: the chat's lease as the store saw it with a stored message (store/queue-ops.ts). */
export type Accepted = InboundOutcome | { type: 'stored'; inboxId: number; lease: LeaseSeen };

export async function acceptMessage(d: AcceptDeps, msg: InboundMessage, chat: ChatKey): Promise<Accepted> {
  if (!msg.text.trim() && msg.media.length === 0 && !msg.remoteMedia?.length)
    return { type: 'rejected', reason: 'empty message' };
  const max = d.maxPendingPerChat;
  // Claimed before the write (a write that refuses it gives it back): one notice per overflow.
  const notice = d.runSlots.claimDropNotice(chat);
  const res = unwrap(
    await d.store.acceptInbound(msg, {
      now: d.now(),
      maxPending: max,
      ...(notice && { dropNotice: d.textItems(chat, NOTICE.dropping) }),
    }),
  );
  if (notice && !(res.type === 'dropped' && res.noticed)) d.runSlots.clearDropNotice(chat);
  if (res.type === 'duplicate') {
    d.log.info({ channel: msg.channel, chat: maskId(chat) }, 'duplicate inbound message ignored');
    return { type: 'duplicate' };
  }
  if (res.type === 'dropped') {
    d.log.warn(
      { chat: maskId(chat), inboxId: res.id, messageId: msg.messageId, waiting: max },
      'chat queue full: message dropped',
    );
    d.kick(chat);
    return { type: 'rejected', reason: 'queue full' };
  }
  return res.lease
    ? { type: 'stored', inboxId: res.id, lease: res.lease }
    : { type: 'stored', inboxId: res.id };
}

// A queue's start when processes share the store (queue/process-owner.ts): nothing is taken over
// here. A chat with unfinished work is made ready, and its run takes the chat's lease first: only a
// lease that was free, expired or whose holder is gone is granted, and the run then takes over what
// the holder left (run.ts, recoverChat). A chat another live process holds is left to it, its
// pending questions included. Afterwards the owner's notifications keep the queue going: a message
// stored by another process for a chat this one holds, a reply waiting for this one to send it, a
// chat whose holder went away (the orphan scan), a lease lost while a run still went on.
import type { ChatKey } from '../core/types.js';
import type { Interactions } from './interactions.js';
import type { Lanes } from './lanes.js';
import type { ProcessOwner } from './process-owner.js';

/** The queue's parts it starts with. */
export interface SharedQueue {
  lanes: Lanes;
  deliverer: { owns(chat: ChatKey): boolean; kick(chat: ChatKey): void; kickAll(): Promise<void> };
  interactions: Interactions | undefined;
}

export interface SharedStartDeps {
  unfinished(): Promise<{ chat: ChatKey }[]>;
  closing(): boolean;
  pump(): void;
}

export async function startShared(owner: ProcessOwner, q: SharedQueue, d: SharedStartDeps): Promise<void> {
  const { lanes, deliverer } = q;
  const others = await owner.leasedByOthers();
  const mine = (chat: ChatKey) => deliverer.owns(chat) && !others.has(chat);
  const ready = (chat: ChatKey) => {
    if (d.closing() || !deliverer.owns(chat) || lanes.get(chat)) return;
    lanes.markReady(chat);
    d.pump();
  };
  owner.on('chat_ready', (chat, own) => {
    if (!own) ready(chat as ChatKey);
  });
  owner.on('outbox', (chat, own) => {
    if (!own) deliverer.kick(chat as ChatKey);
  });
  owner.onOrphans((chats) => {
    for (const o of chats) ready(o.chat);
  });
  // Its run goes on elsewhere now: stopped here, and the store refuses whatever it still writes.
  owner.onLost((chat) => lanes.abort(chat, 'shutdown'));
  for (const row of await d.unfinished()) if (mine(row.chat)) lanes.markReady(row.chat);
  await q.interactions?.start(mine);
  await deliverer.kickAll();
  d.pump();
}

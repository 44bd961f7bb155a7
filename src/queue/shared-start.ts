// A queue's start when processes share the store (queue/process-owner.ts): nothing is taken over
// here. A chat with unfinished work is made ready, and its run takes the chat's lease first: only a
// lease that was free, expired or whose holder is gone is granted, and the run then takes over what
// the holder left (run.ts, recoverChat). A chat another live process holds is left to it, its
// pending questions included. Afterwards the owner's notifications keep the queue going: a message
// stored by another process for a chat this one holds, a reply waiting for this one to send it, a
// chat whose holder went away (the orphan scan), a lease lost while a run still went on, a /stop or
// /new typed in another process (`chat_control`), an answer another process recorded for a question
// a run of this one waits on (`interaction_answered`).
import type { ChatKey } from '../core/types.js';
import { parseControl } from './chat-control.js';
import type { Interactions } from './interactions.js';
import type { ProcessOwner } from './process-owner.js';
import { forMe, parseReadyKey } from './ready-key.js';
import type { RunSlots } from './run-slots.js';
import { answeredElsewhere } from './shared-answers.js';

/** The queue's parts it starts with. */
export interface SharedQueue {
  runSlots: RunSlots;
  deliverer: {
    owns(chat: ChatKey): boolean;
    kick(chat: ChatKey, heard?: boolean): void;
    kickAll(): Promise<void>;
  };
  interactions: Interactions | undefined;
}

export interface SharedStartDeps {
  unfinished(): Promise<{ chat: ChatKey }[]>;
  closing(): boolean;
  pump(): void;
  /** Stops the chat's run here (a /stop typed in another process). */
  stopRun(chat: ChatKey): void;
  /** Ends the scope's warm process here (a /new typed in another process, a lease lost). */
  closeWarm(scope: string): void;
  /** The session scope (the warm process's key) a chat's turns run in. */
  scopeOf(chat: ChatKey): string;
}

export async function startShared(owner: ProcessOwner, q: SharedQueue, d: SharedStartDeps): Promise<void> {
  const { runSlots, deliverer } = q;
  const others = await owner.leasedByOthers();
  const mine = (chat: ChatKey) => deliverer.owns(chat) && !others.has(chat);
  const ready = (chat: ChatKey) => {
    if (d.closing() || !deliverer.owns(chat) || runSlots.get(chat)) return;
    runSlots.markReady(chat);
    d.pump();
  };
  // One naming another process is that one's: this one would try a lease it cannot get.
  owner.on('chat_ready', (key, own) => {
    const r = parseReadyKey(key);
    if (!own && forMe(r, owner.id)) ready(r.chat);
  });
  owner.on('outbox', (key, own) => {
    const r = parseReadyKey(key);
    if (!own && forMe(r, owner.id)) deliverer.kick(r.chat, true);
  });
  owner.on('chat_control', (key, own, at) => {
    const c = own ? undefined : parseControl(key);
    if (c?.type === 'reset_scope') d.closeWarm(c.scope);
    // Only a run that started before the /stop: the notice arrives up to a poll later, and a run
    // begun meanwhile is for a message the /stop did not see.
    else if (c?.type === 'stop' && (runSlots.get(c.chat)?.startedAt ?? Number.POSITIVE_INFINITY) <= at)
      d.stopRun(c.chat);
  });
  const it = q.interactions;
  if (it) {
    // An answer recorded here for a question no run of this process waits on: its asker hears it.
    it.elsewhere = (id) => owner.tell('interaction_answered', String(id));
    owner.on('interaction_answered', (key, own) => {
      if (!own) void answeredElsewhere(it, Number(key));
    });
  }
  owner.onOrphans((chats) => {
    for (const o of chats) ready(o.chat);
  });
  // Its run goes on elsewhere now: stopped here, and the store refuses whatever it still writes. Its
  // warm process closes too (after the aborted turn): the new holder's turns are not in its context,
  // and a process left running here would hold a CLI and its memory for a chat this one no longer runs.
  owner.onLost((chat) => {
    runSlots.abort(chat, 'shutdown');
    d.closeWarm(d.scopeOf(chat));
  });
  for (const row of await d.unfinished()) if (mine(row.chat)) runSlots.markReady(row.chat);
  await q.interactions?.start(mine);
  await deliverer.kickAll();
  d.pump();
}

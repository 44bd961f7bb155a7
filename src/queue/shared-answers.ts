// Questions and approvals when processes share the store: a run of one process may wait on an answer
// that reaches another (a webhook delivered to the other relay, a console typed into the other
// process). The process that gets the message routes it by what the store says the chat was shown,
// records the answer, and tells the others (`interaction_answered`); the one whose run waits reads
// the answer from the store. What is waiting stays in the memory of the process that runs the chat.
import type { ShownInteraction } from '../core/interaction-route.js';
import type { ChatKey } from '../core/types.js';
import type { Interactions } from './interactions.js';

/** Another process recorded an answer to `id`: read it, and the run here waiting on it goes on. */
export async function answeredElsewhere(it: Interactions, id: number): Promise<void> {
  if (!it.waits(id)) return;
  const i = await it.store.get(id).catch(() => undefined);
  if (i?.status === 'answered' && i.answer !== undefined) it.answered(id, i.answer, false);
}

/**
 * The question the chat sees now when a run of another process asked it: the first pending one the
 * store says was shown and has not expired. Undefined when processes do not share the store.
 */
export async function shownElsewhere(
  it: Interactions,
  chat: ChatKey,
  now: number,
): Promise<ShownInteraction | undefined> {
  if (!it.elsewhere) return undefined;
  const pending = await it.store.pending(chat).catch(() => []);
  const i = pending.find((p) => p.shownAt !== undefined && (p.expiresAt ?? Number.POSITIVE_INFINITY) > now);
  return i && { id: i.id, type: i.type, ...(i.choices && { choices: i.choices }) };
}

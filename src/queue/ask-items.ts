// What the chat is sent to ask, and the deny of an approval too long to show. An approval goes as
// code (OutboundItem `code`): the exact request, never read as Markdown by the channel.
import type { AgentKind, ApprovalAnswer, ApprovalQuestion } from '../agents/types.js';
import { approvalMessage, questionMessage, tooLongNotice } from '../core/interaction-text.js';
import type { ChatKey, OutboundItem } from '../core/types.js';
import type { Logger } from '../log.js';
import { maskId } from '../log.js';
import type { Interaction, InteractionStore } from '../store/interactions.js';

type TextItems = (chat: ChatKey, text: string) => OutboundItem[];

/** The message that shows one, after `lead` when given. */
export function showItems(textItems: TextItems, i: Interaction, lead?: string): OutboundItem[] {
  const head = lead ? textItems(i.chat, lead) : [];
  if (i.type === 'question') return [...head, ...textItems(i.chat, questionMessage(i))];
  const ask = approvalMessage(i) ?? tooLongNotice(i);
  return [
    ...head,
    ...textItems(i.chat, ask).map((t): OutboundItem => (t.type === 'text' ? { ...t, code: true } : t)),
  ];
}

export interface TooLongDeps {
  store: InteractionStore;
  textItems: TextItems;
  kick(chat: ChatKey): void;
  now(): number;
  log: Logger;
}

/** Not asked: recorded as closed, the chat told, and the agent denied. */
export async function denyTooLong(
  d: TooLongDeps,
  chat: ChatKey,
  q: { runKey: string; asker: AgentKind; toolKind: string; question: ApprovalQuestion; keepChars: number },
): Promise<ApprovalAnswer> {
  const now = d.now();
  const { runKey, asker, toolKind, question } = q;
  const text = question.summary.slice(0, q.keepChars);
  const i = await d.store.add({ chat, type: 'approval', runKey, asker, toolKind, text }, now);
  await d.store.close(i.id, 'cancelled', now, {
    key: `ask-toolong:${i.id}`,
    items: d.textItems(chat, tooLongNotice({ asker, text: question.summary })),
  });
  d.kick(chat);
  d.log.info({ chat: maskId(chat), id: i.id }, 'approval too long to show: denied');
  return { type: 'deny', reason: 'the request is too long to show on a phone; split it into smaller steps' };
}

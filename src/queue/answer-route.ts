// A chat's message while a run waits on the chat: routed by core/interaction-route.ts and
// recorded here. Every such message is stored with its dedupe row like any other (a redelivered
// webhook answers nothing twice), but never as a message to run, so it is never steered into the
// turn either. An approval answer is a chat command (/approve, /deny), so it takes that path.
import type { InboundOutcome } from '../channels/types.js';
import type { ChatCommand } from '../core/commands.js';
import { routeMessage } from '../core/interaction-route.js';
import { agentLine } from '../core/interaction-text.js';
import { mediaLines } from '../core/prompt.js';
import type { ChatKey, InboundMessage } from '../core/types.js';
import { maskId } from '../log.js';
import type { Interactions } from './interactions.js';
import { shownElsewhere } from './shared-answers.js';

export type Routed =
  /** Apply as this chat command (an approval's `1`, `2`, `3`). */
  { type: 'command'; command: ChatCommand } | { type: 'done'; outcome: InboundOutcome };

/** Undefined: not an answer, the message goes on as usual. */
export async function answerRoute(
  it: Interactions,
  msg: InboundMessage,
  chat: ChatKey,
  now: number,
): Promise<Routed | undefined> {
  // A run of another process may be the one waiting (processes sharing the store): the store says.
  const shown = it.shown(chat) ?? (await shownElsewhere(it, chat, now));
  const lastChange = it.lastChange(chat);
  if (!shown && !lastChange) return undefined;
  const route = routeMessage({
    text: msg.text,
    senderId: msg.senderId,
    isGroup: msg.isGroup,
    approver: it.isApprover(msg.channel, msg.senderId),
    shown,
    lastChange,
    settleMs: it.settleMs,
    // Files the channel already downloaded are named for the agent, as in a prompt; links it would
    // fetch just before a run are not fetched for an answer.
    attachments: [
      ...mediaLines(msg.media),
      ...(msg.remoteMedia?.length ? ['(an attachment came with the answer but could not be passed on)'] : []),
    ],
  });
  const key = `ans:${msg.channel}:${msg.messageId}`;
  switch (route.type) {
    case 'normal':
      return undefined;
    case 'approve':
      return {
        type: 'command',
        command:
          route.choice === 'deny'
            ? { type: 'deny', id: route.id }
            : { type: 'approve', id: route.id, forChat: route.choice === 'allow_chat' },
      };
    case 'answer': {
      const asker = agentLine(it.shownAsker(chat) ?? 'the agent', 30);
      const r = await it.store.answer(msg, route.id, route.answer, now, {
        key,
        items: it.textItems(chat, `Answer passed to ${asker}.`),
      });
      if (r === 'duplicate') return { type: 'done', outcome: { type: 'duplicate' } };
      // Closed a moment ago (its timeout): an ordinary message after all.
      if (r === 'closed') return undefined;
      it.answered(route.id, route.answer);
      it.kick(chat);
      it.log.info({ chat: maskId(chat), id: route.id }, 'question answered');
      return { type: 'done', outcome: { type: 'command' } };
    }
    case 'reshow': {
      // Closing meanwhile: the lead alone says the answer was not taken.
      const items = it.reshowItems(chat, route.id, route.lead) ?? it.textItems(chat, route.lead);
      const fresh = await it.store.swallow(msg, now, 'answer_changed', { key, items });
      if (!fresh) return { type: 'done', outcome: { type: 'duplicate' } };
      it.reshown(route.id);
      it.kick(chat);
      it.log.info({ chat: maskId(chat), id: route.id }, 'answer came as the question changed: shown again');
      return { type: 'done', outcome: { type: 'command' } };
    }
    case 'ignore': {
      const reply = route.reply ? { key, items: it.textItems(chat, route.reply) } : undefined;
      const fresh = await it.store.swallow(msg, now, `answer_${route.why}`, reply);
      if (!fresh) return { type: 'done', outcome: { type: 'duplicate' } };
      if (reply) it.kick(chat);
      // No body and no number at info: which chat, and why it was not taken.
      it.log.info({ chat: maskId(chat), why: route.why }, 'answer not taken');
      return { type: 'done', outcome: { type: 'command' } };
    }
  }
}

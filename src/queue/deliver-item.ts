// One outbox row handed to its channel: a message is sent; an edit, a reaction or a deletion is made on the
// message agentwire's id names, turned into the provider's id only now (the message was written
// before it, so in a chat's order it has been delivered or given up by the time this row's turn comes).
import type { Channel, SendOptions } from '../channels/types.js';
import { cardText } from '../core/card.js';
import { parseMessageRef } from '../core/message-ref.js';
import type { ChatKey, OutboxItem, SendResult } from '../core/types.js';
import type { QueueStore } from '../store/queue-ops.js';

type Failure = Extract<SendResult, { ok: false }>;

const refused = (error: string, code: string): Failure => ({ ok: false, error, retryable: false, code });

export async function deliverItem(
  store: Pick<QueueStore, 'messageRef'>,
  channel: Channel,
  chat: ChatKey,
  chatId: string,
  item: OutboxItem,
  opts: SendOptions | undefined,
): Promise<SendResult> {
  switch (item.type) {
    case 'text':
    case 'file':
    case 'url':
      return channel.send(chatId, item, opts);
    case 'card': {
      // A channel without buttons never gets one (the tool wrote text instead); should the config
      // have changed since, the card still goes, as text. So does one the provider refuses for good
      // (a keyboard it will not take): the person still gets the choices, numbered.
      const asText = () => channel.send(chatId, { type: 'text', text: cardText(item.card) }, opts);
      if (!channel.sendCard) return asText();
      const r = await channel.sendCard(chatId, item.card);
      return r.ok || r.retryable || r.code === 'blocked' ? r : asText();
    }
    case 'edit':
    case 'react':
    case 'delete': {
      // What the channel cannot do is refused before the message is looked up: it never will.
      const act = actionOn(channel, chatId, item);
      if (!act) return refused(`this channel cannot ${VERB[item.type]} messages`, 'unsupported');
      // A reaction may go on anyone's message; only our own can be edited or deleted.
      const target = await providerIdFor(store, chat, item.ref, item.type !== 'react');
      if (!target.ok) return target;
      return act(target.providerId);
    }
    default: {
      const never: never = item;
      return refused(`unknown item ${JSON.stringify(never)}`, 'unknown');
    }
  }
}

type Action = Extract<OutboxItem, { type: 'edit' | 'react' | 'delete' }>;

const VERB: Record<Action['type'], string> = { edit: 'edit', react: 'react to', delete: 'delete' };

/** The channel's call for an action on a message, or undefined when its plug-in lacks the capability. */
function actionOn(
  channel: Channel,
  chatId: string,
  item: Action,
): ((providerId: string) => Promise<SendResult>) | undefined {
  switch (item.type) {
    case 'edit':
      return channel.edit && ((id) => channel.edit!(chatId, id, item.text));
    case 'react':
      return channel.react && ((id) => channel.react!(chatId, id, item.emoji));
    case 'delete':
      return channel.delete && ((id) => channel.delete!(chatId, id));
  }
}

async function providerIdFor(
  store: Pick<QueueStore, 'messageRef'>,
  chat: ChatKey,
  raw: string,
  mustBeOwn: boolean,
): Promise<{ ok: true; providerId: string } | Failure> {
  const ref = parseMessageRef(raw);
  const row = ref && (await store.messageRef(ref));
  // The tool checked this when it stored the row; checked again, since the row is what is sent.
  if (!row || row.chat !== chat) return refused('no such message in this chat', 'no_message');
  if (mustBeOwn && !row.own) return refused('only our own messages can be edited', 'not_own');
  if (row.status === 'pending')
    return { ok: false, error: 'the message is not sent yet', retryable: true, code: 'not_sent' };
  if (row.status === 'failed' || row.providerId === undefined)
    return refused('the message was never delivered', 'not_delivered');
  return { ok: true, providerId: row.providerId };
}

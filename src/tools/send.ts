// send_message and send_file into the outbox. A file passes the same media policy as a MEDIA: line
// (allowed roots, no escaping them, size, https only); unlike a MEDIA: line, a refused file is not
// turned into a notice in the chat: the agent is told why, and may say so itself.

import type { ChunkRules } from '../core/chunk.js';
import { formatMessageRef } from '../core/message-ref.js';
import { textItems } from '../core/reply.js';
import type { ChannelName, ChatKey, OutboundItem, OutboxItem } from '../core/types.js';
import { parseChatKey } from '../core/types.js';
import type { MediaPolicy } from '../queue/ports.js';
import type { QueueStore } from '../store/queue-ops.js';
import type { ToolDeps, Writer } from './handlers.js';

export interface SenderDeps {
  store: Pick<QueueStore, 'enqueueReply' | 'enqueueForChat' | 'outboxIdOf'>;
  mediaPolicy: MediaPolicy;
  /** The channel's splitter rules, the same the queue cuts a reply by. */
  textRules(channel: ChannelName): ChunkRules;
  /** Starts sending the chat's outbox. */
  kick(chat: ChatKey): void;
  now(): number;
}

export function toolSender(d: SenderDeps): ToolDeps['send'] {
  return async (chat, key, text, media, cwd, writer) => {
    const target = parseChatKey(chat);
    if (!target) return { refused: 'this chat cannot be reached' };
    const items: OutboundItem[] = text.trim() ? textItems(text, d.textRules(target.channel)) : [];
    if (media.length > 0) {
      const decisions = await d
        .mediaPolicy(media, { cwd, channel: target.channel })
        .catch(() => [
          { type: 'refused' as const, ref: media[0] ?? '', reason: 'the attachment check failed' },
        ]);
      for (const dec of decisions) {
        if (dec.type === 'refused') return { refused: dec.reason };
        items.push(dec.item);
      }
    }
    if (items.length === 0) return { refused: 'nothing to send' };
    return store(d, chat, key, items, writer);
  };
}

/** An edit, a reaction or a card, already checked, into the outbox like a send. */
export function toolChanger(d: Pick<SenderDeps, 'store' | 'kick' | 'now'>): ToolDeps['change'] {
  return async (chat, key, action, fence) => {
    return store(d, chat, key, [action], { chat, ...(fence && { fence }) });
  };
}

async function store(
  d: Pick<SenderDeps, 'store' | 'kick' | 'now'>,
  chat: ChatKey,
  key: string,
  items: readonly OutboxItem[],
  writer: Writer,
): Promise<{ refused?: string; id?: string }> {
  // Keyed: a run redone after a crash writes nothing the second time. Fenced: a run whose process
  // lost the chat's lease (paused past it, the chat taken over) writes nothing at all.
  const stored =
    writer.chat === chat
      ? await d.store.enqueueReply(chat, key, items, d.now(), writer.fence)
      : await d.store.enqueueForChat(chat, key, items, d.now(), writer.fence);
  if (!stored.ok)
    return {
      refused:
        stored.reason === 'conflict' && !stored.retryable
          ? 'this run no longer holds its chat (another agentwire process took it over)'
          : stored.retryable
            ? 'the relay could not store it just now (its disk may be full); try again in a moment'
            : 'the relay could not store it',
    };
  d.kick(chat);
  // The id of the first part: what the agent names the message by (a redone run gets the same).
  const id = await d.store.outboxIdOf(key).catch(() => undefined);
  return id === undefined ? {} : { id: formatMessageRef({ type: 'out', id }) };
}

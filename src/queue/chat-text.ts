// Text for a chat, cut by its channel's rules, whether or not the channel runs in this process: a
// reply stored by `agentwire heartbeat` (no channel running) is cut exactly as the relay would cut
// it, so the channel sends each stored chunk as one message and never splits again. A running
// channel's own textLimit wins (a test's fake channel, the console).
import { type ChunkRules, channelRules } from '../core/chunk.js';
import { textItems } from '../core/reply.js';
import type { ChannelName, ChatKey, OutboundItem } from '../core/types.js';
import { parseChatKey } from '../core/types.js';
import type { QueueOptions } from './queue-types.js';

type TextOptions = Pick<QueueOptions, 'channels' | 'textRules'>;

/** The splitter's rules for a channel, from its plug-in (or the running channel's own limit). */
export function chatTextRules(opts: TextOptions, channel: ChannelName): ChunkRules {
  return channelRules(opts.channels.get(channel)?.textLimit, opts.textRules?.(channel));
}

/** `text` as the outbox items of `chat`. */
export function chatTextItems(opts: TextOptions, chat: ChatKey, text: string): OutboundItem[] {
  const channel = (parseChatKey(chat) as { channel: ChannelName }).channel;
  return textItems(text, chatTextRules(opts, channel));
}

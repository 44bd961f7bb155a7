// Who "the owner" is on a channel, the default approver (permissions.approvers unset, docs/tools.md):
// the channel's own chat when it has one (WhatsApp: the linked number, whose self-chat is the
// owner's), else the first number or id of the channel's `allowFrom` (Twilio, Telegram: the first
// person the owner let in is the owner in every set-up the docs describe), and on the console the
// person at the terminal. Asked at each answer: WhatsApp learns its number when it connects.

import { CONSOLE_CHAT_ID } from '../channels/console/console.js';
import { CONSOLE, channelPlugin } from '../channels/registry.js';
import type { Config } from '../config/schema.js';
import type { ChannelName } from '../core/types.js';
import type { ChannelMap } from './ports.js';

/** The first real entry of an allow-list (`*` names nobody). */
export function firstAllowed(list: unknown): string | undefined {
  if (!Array.isArray(list)) return undefined;
  const first = list.find((e) => typeof e === 'string' && e !== '*' && e.trim() !== '');
  return typeof first === 'string' ? first.trim() : undefined;
}

export function ownerOf(config: Config, channels: ChannelMap): (channel: ChannelName) => string | undefined {
  return (channel) => {
    if (channel === CONSOLE) return CONSOLE_CHAT_ID;
    const plugin = channelPlugin(channel);
    const running = channels.get(channel);
    const own = plugin?.defaultTarget?.({ config, ...(running && { state: running.status() }) });
    if (own) return own;
    // Each channel's config section is named for it (channels/plugin.ts), with its allowFrom.
    const section = (config as unknown as Record<string, { allowFrom?: unknown } | undefined>)[channel];
    return firstAllowed(section?.allowFrom);
  };
}

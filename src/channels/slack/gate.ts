// Pure access policy for one normalised Slack message. Identities are user ids only (a display name
// can be changed by its owner). Direct messages need the sender in `allowFrom`; in a channel the
// channel must be in `channels`, the sender in `channelAllowFrom`, and the bot addressed: an @mention,
// a reply in a thread the bot is in, a pattern, or a channel in `channelAlways`.
import type { NormalizedMessage } from './normalize.js';

export type AllowList = '*' | readonly string[];

export interface GateConfig {
  allowFrom: AllowList;
  channels: AllowList;
  channelAllowFrom: AllowList;
  channelAlways: readonly string[];
  mentionPatterns: readonly RegExp[];
}

export type Trigger = 'direct' | 'mention' | 'thread' | 'pattern' | 'always';

export type GateDecision =
  | { type: 'run'; trigger: Trigger }
  | { type: 'skip'; reason: 'not_addressed' | 'sender_not_allowed' }
  | { type: 'drop'; reason: 'not_allowed' | 'channel_not_allowed' };

const listed = (list: AllowList, value: string): boolean =>
  list === '*' || list.includes('*') || list.includes(value);

/** `botInThread`: the message is a reply in a thread the bot started, posted in or was called into. */
export function gate(msg: NormalizedMessage, cfg: GateConfig, botInThread: boolean): GateDecision {
  if (!msg.isGroup) {
    return listed(cfg.allowFrom, msg.senderId)
      ? { type: 'run', trigger: 'direct' }
      : { type: 'drop', reason: 'not_allowed' };
  }
  if (!listed(cfg.channels, msg.conversation)) return { type: 'drop', reason: 'channel_not_allowed' };
  if (!listed(cfg.channelAllowFrom, msg.senderId)) return { type: 'skip', reason: 'sender_not_allowed' };
  if (cfg.channelAlways.includes(msg.conversation)) return { type: 'run', trigger: 'always' };
  if (msg.mentionsBot) return { type: 'run', trigger: 'mention' };
  if (msg.threadTs && botInThread) return { type: 'run', trigger: 'thread' };
  if (cfg.mentionPatterns.some((re) => re.test(msg.text))) return { type: 'run', trigger: 'pattern' };
  return { type: 'skip', reason: 'not_addressed' };
}

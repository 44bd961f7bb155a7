// Pure access policy for one normalised Telegram message, as on WhatsApp. Identities are numeric user
// ids only: a @username can be renamed or taken over, so it never passes an allow-list. Private chats
// need the sender in `allowFrom`; groups need the group in `groups`, the sender in `groupAllowFrom`,
// and the bot addressed (mention, reply to it, a pattern) unless the group is in `groupAlways`.
import type { NormalizedMessage } from './normalize.js';

export type AllowList = '*' | readonly string[];

export interface GateConfig {
  allowFrom: AllowList;
  groups: AllowList;
  groupAllowFrom: AllowList;
  groupAlways: readonly string[];
  mentionPatterns: readonly RegExp[];
}

export type Trigger = 'direct' | 'mention' | 'reply' | 'pattern' | 'always';

export type GateDecision =
  | { type: 'run'; trigger: Trigger }
  /** In an allowed group but not a request: dropped quietly (Telegram keeps the history itself). */
  | { type: 'skip'; reason: 'not_addressed' | 'sender_not_allowed' }
  | { type: 'drop'; reason: 'not_allowed' | 'group_not_allowed' };

const listed = (list: AllowList, value: string): boolean =>
  list === '*' || list.includes('*') || list.includes(value);

export function gate(msg: NormalizedMessage, cfg: GateConfig): GateDecision {
  if (!msg.isGroup) {
    return listed(cfg.allowFrom, msg.senderId)
      ? { type: 'run', trigger: 'direct' }
      : { type: 'drop', reason: 'not_allowed' };
  }
  if (!listed(cfg.groups, msg.chatId)) return { type: 'drop', reason: 'group_not_allowed' };
  if (!listed(cfg.groupAllowFrom, msg.senderId)) return { type: 'skip', reason: 'sender_not_allowed' };
  if (cfg.groupAlways.includes(msg.chatId)) return { type: 'run', trigger: 'always' };
  if (msg.mentionsBot) return { type: 'run', trigger: 'mention' };
  if (msg.repliesToBot) return { type: 'run', trigger: 'reply' };
  if (cfg.mentionPatterns.some((re) => re.test(msg.text))) return { type: 'run', trigger: 'pattern' };
  return { type: 'skip', reason: 'not_addressed' };
}

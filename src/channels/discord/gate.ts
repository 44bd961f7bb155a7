// Pure access policy for one normalised Discord message. Identities are user ids only (a username or
// display name can change hands). Direct messages need the sender in `allowFrom`; a server channel
// needs its server in `guilds`, the sender in `groupAllowFrom`, and the bot addressed (a mention, a
// reply to one of its messages, a pattern) unless the channel is in `groupAlways`.
import type { NormalizedMessage } from './normalize.js';

export type AllowList = '*' | readonly string[];

export interface GateConfig {
  allowFrom: AllowList;
  guilds: AllowList;
  groupAllowFrom: AllowList;
  /** Channel ids (a thread's parent counts for the thread). */
  groupAlways: readonly string[];
  mentionPatterns: readonly RegExp[];
}

export type Trigger = 'direct' | 'mention' | 'reply' | 'pattern' | 'always' | 'slash';

export type GateDecision =
  | { type: 'run'; trigger: Trigger }
  /** In an allowed server but not a request: dropped quietly (Discord keeps the history itself). */
  | { type: 'skip'; reason: 'not_addressed' | 'sender_not_allowed' }
  /** Not let in at all: logged with the ids to add, never answered. */
  | { type: 'drop'; reason: 'not_allowed' | 'guild_not_allowed' };

const listed = (list: AllowList, value: string): boolean =>
  list === '*' || list.includes('*') || list.includes(value);

export function gate(msg: NormalizedMessage, cfg: GateConfig): GateDecision {
  if (msg.guildId === undefined) {
    return listed(cfg.allowFrom, msg.senderId)
      ? { type: 'run', trigger: msg.slash ? 'slash' : 'direct' }
      : { type: 'drop', reason: 'not_allowed' };
  }
  if (!listed(cfg.guilds, msg.guildId)) return { type: 'drop', reason: 'guild_not_allowed' };
  if (!listed(cfg.groupAllowFrom, msg.senderId)) return { type: 'skip', reason: 'sender_not_allowed' };
  // A slash command is addressed to the bot by construction.
  if (msg.slash) return { type: 'run', trigger: 'slash' };
  if (cfg.groupAlways.includes(msg.channelId) || (msg.parentId && cfg.groupAlways.includes(msg.parentId)))
    return { type: 'run', trigger: 'always' };
  if (msg.mentionsBot) return { type: 'run', trigger: 'mention' };
  if (msg.repliesToBot) return { type: 'run', trigger: 'reply' };
  if (cfg.mentionPatterns.some((re) => re.test(msg.text))) return { type: 'run', trigger: 'pattern' };
  return { type: 'skip', reason: 'not_addressed' };
}

// Pure access policy for one normalised message. Fails closed: a sender whose phone number cannot
// be resolved (an unmapped @lid) never passes a phone-number allow-list (openclaw#34706 anti-pattern).
import { isOwnJid, type OwnIds } from './jid.js';
import type { NormalizedMessage } from './normalize.js';

export type AllowList = '*' | readonly string[];

export interface GateConfig {
  /** Undefined: only the linked number itself (self-chat). */
  allowFrom?: AllowList;
  groups: AllowList;
  /** Undefined: any member of an allowed group. */
  groupAllowFrom?: AllowList;
  groupAlways: readonly string[];
  mentionPatterns: readonly RegExp[];
}

export interface GateInput {
  msg: NormalizedMessage;
  senderE164?: string;
  own: OwnIds;
  /** The message id is one we sent (our own echo coming back). */
  sentByUs: boolean;
  /** The quoted message id is one we sent. */
  quotesUs: boolean;
}

export type Trigger = 'self' | 'direct' | 'mention' | 'reply' | 'pattern' | 'always';

export type DropReason = 'echo' | 'not_allowed' | 'unknown_sender' | 'group_not_allowed';

export type GateDecision =
  | { type: 'run'; trigger: Trigger }
  | { type: 'context'; reason: 'not_addressed' | 'sender_not_allowed' | 'unknown_sender' | 'owner' }
  | { type: 'drop'; reason: DropReason };

const listed = (list: AllowList, value: string | undefined): boolean =>
  list === '*' || list.includes('*') || (value !== undefined && list.includes(value));

export function gate(input: GateInput, cfg: GateConfig): GateDecision {
  const { msg, senderE164, own } = input;
  if (msg.fromMe) {
    // normalize() lets fromMe through in self-chat and groups only. Our own replies coming back never
    // run (the self-chat loop of openclaw#54010). The owner typing to themselves runs; the owner
    // talking in a group is conversation, not a request: context for the next run, never a run.
    if (input.sentByUs) return { type: 'drop', reason: 'echo' };
    if (!msg.isGroup) return { type: 'run', trigger: 'self' };
    return listed(cfg.groups, msg.chatJid)
      ? { type: 'context', reason: 'owner' }
      : { type: 'drop', reason: 'group_not_allowed' };
  }
  if (!msg.isGroup) {
    if (cfg.allowFrom === undefined) {
      return senderE164 !== undefined && senderE164 === own.e164
        ? { type: 'run', trigger: 'self' }
        : { type: 'drop', reason: senderE164 === undefined ? 'unknown_sender' : 'not_allowed' };
    }
    if (listed(cfg.allowFrom, senderE164)) return { type: 'run', trigger: 'direct' };
    return { type: 'drop', reason: senderE164 === undefined ? 'unknown_sender' : 'not_allowed' };
  }
  if (!listed(cfg.groups, msg.chatJid)) return { type: 'drop', reason: 'group_not_allowed' };
  if (cfg.groupAllowFrom !== undefined && !listed(cfg.groupAllowFrom, senderE164)) {
    return { type: 'context', reason: senderE164 === undefined ? 'unknown_sender' : 'sender_not_allowed' };
  }
  if (cfg.groupAlways.includes(msg.chatJid)) return { type: 'run', trigger: 'always' };
  if (msg.mentions.some((j) => isOwnJid(j, own))) return { type: 'run', trigger: 'mention' };
  if (input.quotesUs || isOwnJid(msg.quoted?.participant, own)) return { type: 'run', trigger: 'reply' };
  if (cfg.mentionPatterns.some((re) => re.test(msg.text))) return { type: 'run', trigger: 'pattern' };
  return { type: 'context', reason: 'not_addressed' };
}

/** Mention patterns from config, case-insensitive; invalid ones are reported, not silently dropped. */
export function compilePatterns(
  patterns: readonly string[],
): { ok: true; value: RegExp[] } | { ok: false; error: string } {
  const out: RegExp[] = [];
  for (const p of patterns) {
    try {
      out.push(new RegExp(p, 'i'));
    } catch (err) {
      return { ok: false, error: `whatsapp.mentionPatterns: ${(err as Error).message}` };
    }
  }
  return { ok: true, value: out };
}

// Who a sender is to the relay, and what that lets them do. Pure; table-tested in
// test/core/roles.test.ts. The channel's gate decides who gets in at all; these decide, for someone
// already in, whether a command is theirs to give and which profile their runs use.
//
// - owner:  the channel's owner (the linked WhatsApp number, the first `allowFrom` entry, the
//           person at the terminal) and everyone in `access.owners`.
// - guest:  everyone in `access.guests`, and a stranger a channel lets in only because its
//           `dm` is `everyone` (nobody vouched for them).
// - member: everyone else the gate let in (the allow-lists, as before roles existed).
import type { CommandName } from './commands.js';

export type Role = 'owner' | 'member' | 'guest';

/** `dm` per channel: who may talk to the agent in a direct chat. */
export type DmPolicy = 'allowlist' | 'everyone' | 'none';

/** An entry names a sender on every channel (`+15551234567`), or on one (`telegram:42`). */
export function listedSender(entries: readonly string[], channel: string, senderId: string): boolean {
  if (!senderId) return false;
  return entries.some((e) => {
    const i = e.indexOf(':');
    // `<channel>:<sender id>`: that channel only. A `whatsapp:+1…` Twilio address is not a sender id
    // (the channel strips it), so the only `:` an entry holds is the channel's.
    if (i > 0) return e.slice(0, i) === channel && e.slice(i + 1) === senderId;
    return e === senderId;
  });
}

export interface RoleInput {
  channel: string;
  senderId: string;
  /** The channel's own owner (queue/owner.ts); undefined: not known yet. */
  owner: string | undefined;
  owners: readonly string[];
  guests: readonly string[];
  /** The channel's member list for direct chats (`allowFrom`); `*` lets anyone in as a member. */
  members: '*' | readonly string[] | undefined;
  /** The channel's `dm` policy. */
  dm: DmPolicy;
  isGroup: boolean;
}

export function roleOf(i: RoleInput): Role {
  if (!i.senderId) return 'guest';
  if (i.owner !== undefined && i.owner === i.senderId) return 'owner';
  if (listedSender(i.owners, i.channel, i.senderId)) return 'owner';
  if (listedSender(i.guests, i.channel, i.senderId)) return 'guest';
  // In a group the group's own allow-list let them in: a member, as before roles.
  if (i.isGroup) return 'member';
  const m = i.members;
  if (m === '*' || m?.includes('*')) return 'member';
  if (m?.includes(i.senderId)) return 'member';
  // In a direct chat and on no list: only `dm: everyone` lets such a sender in.
  return i.dm === 'everyone' ? 'guest' : 'member';
}

/** Members keep these; owners have every command; guests have what `access.guestCommands` grants. */
export const MEMBER_COMMANDS: readonly CommandName[] = [
  'new',
  'stop',
  'status',
  'help',
  'tasks',
  'approvals',
];

/**
 * Commands that change how the agent runs for everyone in the chat (its agent, thinking level,
 * verbosity): the owner's alone, whatever else is granted. Answering an approval (`/approve`,
 * `/deny`, `1` `2` `3`) is for `permissions.approvers`, which is the owners unless the owner
 * names others: the command goes through here and the approver check refuses it.
 */
export const OWNER_ONLY: readonly CommandName[] = ['agent', 'think', 'verbose'];

/** Decided by the approver check (core/approvers.ts), whatever the role. */
const APPROVER_COMMANDS: readonly CommandName[] = ['approve', 'deny'];

export type RefusalReason = 'owner_only' | 'not_granted' | 'not_yours';
export type CommandAccess = { type: 'allowed' } | { type: 'refused'; reason: RefusalReason };

/**
 * A member's or guest's `/stop` (once the command is theirs to give): only a run whose every message
 * is their own, so one person in a group cannot stop another's work. No run: allowed (it answers
 * "Nothing is running").
 */
export function stopAccess(
  role: Role,
  runSenders: readonly string[] | undefined,
  sender: string,
): CommandAccess {
  if (role === 'owner' || runSenders === undefined) return { type: 'allowed' };
  return runSenders.every((s) => s === sender)
    ? { type: 'allowed' }
    : { type: 'refused', reason: 'not_yours' };
}

/**
 * Whether `role` may give `cmd`. `sub` marks the form of a command that changes state where the
 * bare form only shows it (`/tasks cancel`, `/approvals reset`): those need the owner too.
 */
export function commandAccess(
  role: Role,
  cmd: CommandName,
  guestCommands: readonly CommandName[],
  changes = false,
): CommandAccess {
  if (role === 'owner' || APPROVER_COMMANDS.includes(cmd)) return { type: 'allowed' };
  if (OWNER_ONLY.includes(cmd)) return { type: 'refused', reason: 'owner_only' };
  if (changes && (cmd === 'tasks' || cmd === 'approvals')) return { type: 'refused', reason: 'owner_only' };
  const granted = role === 'member' ? MEMBER_COMMANDS : guestCommands;
  return granted.includes(cmd) ? { type: 'allowed' } : { type: 'refused', reason: 'not_granted' };
}

/** The least trusted of several roles (a run that collected messages from several senders). */
export function leastRole(roles: readonly Role[]): Role {
  if (roles.includes('guest')) return 'guest';
  if (roles.includes('member')) return 'member';
  return roles.length > 0 ? 'owner' : 'guest';
}

/**
 * The allow-list a channel's gate uses for direct chats: `none` lets only owners in (the channel's
 * own and `access.owners`), `everyone` anyone, `allowlist` the channel's
 * `allowFrom` plus the owners and guests named for this channel (or for every channel).
 */
export function directAllowList(
  dm: DmPolicy,
  allowFrom: '*' | readonly string[] | undefined,
  access: { owners: readonly string[]; guests: readonly string[] },
  channel: string,
): '*' | string[] | undefined {
  if (dm === 'everyone') return '*';
  const forChannel = (list: readonly string[]) =>
    list.flatMap((e) => {
      const i = e.indexOf(':');
      if (i <= 0) return [e];
      return e.slice(0, i) === channel ? [e.slice(i + 1)] : [];
    });
  if (dm === 'none') {
    // The channel's owner is the first allowFrom entry where it has no chat of its own (Twilio,
    // Telegram: queue/owner.ts); WhatsApp's self-chat passes its gate without any list.
    const first = Array.isArray(allowFrom) ? allowFrom.find((e) => e !== '*') : undefined;
    return [...new Set([...(first ? [first] : []), ...forChannel(access.owners)])];
  }
  const extra = forChannel([...access.owners, ...access.guests]);
  if (allowFrom === '*') return '*';
  if (extra.length === 0) return allowFrom === undefined ? undefined : [...allowFrom];
  return [...new Set([...(allowFrom ?? []), ...extra])];
}

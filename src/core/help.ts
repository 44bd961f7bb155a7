// What `/help` (and Telegram's command menu) shows one person: only the commands they may use. A
// member or a guest who saw `/agent` or an owner-only `/deploy` would only be refused on trying it,
// and the list itself tells them what the owner set up. Pure; table-tested by role in
// test/core/help.test.ts. The decisions are roles.ts's and custom-commands.ts's, not repeated here.
import { COMMAND_NAMES, type CommandName, type CommandSettings, commandFor } from './commands.js';
import { type CustomCommand, customAccess, customCommands, defaultDescription } from './custom-commands.js';
import { commandAccess, type Role } from './roles.js';

/** Who is asking: their role, the built-ins guests are granted, and whether they answer approvals. */
export interface HelpViewer {
  role: Role;
  guestCommands: readonly CommandName[];
  /** One of the chat's approvers (permissions.approvers); absent: the owner is, nobody else. */
  approver?: boolean;
}

const OWNER: HelpViewer = { role: 'owner', guestCommands: [] };

/** The built-ins `viewer` may give (in their bare form; the owner's forms are marked in the text). */
export function visibleBuiltins(viewer: HelpViewer): CommandName[] {
  const approver = viewer.approver ?? viewer.role === 'owner';
  return COMMAND_NAMES.filter((name) => {
    // Everyone may type an answer; only an approver's is taken, so only they are shown it.
    if (name === 'approve' || name === 'deny') return approver;
    return commandAccess(viewer.role, name, viewer.guestCommands).type === 'allowed';
  });
}

/** The user's own commands (`commands.<name>`) `role` may use; owner-only unless marked otherwise. */
export function visibleCustom(section: object, role: Role): [string, CustomCommand][] {
  return Object.entries(customCommands(section)).filter(([, c]) => customAccess(role, c.access));
}

/** One line per built-in; the owner-only form of a command is named only to the owner. */
function builtinLine(name: CommandName, p: string, owner: boolean): string {
  switch (name) {
    case 'new':
      return `${p}new [text] (or ${p}reset): start a fresh session; text after it is the first message`;
    case 'stop':
      return `${p}stop: stop the running agent and drop the messages waiting behind it`;
    case 'status':
      return `${p}status: agent, session age, queue, the current run and what it asks you`;
    case 'agent':
      return `${p}agent [kind]: show or switch this chat's agent`;
    case 'think':
      return `${p}think [level]: show or set the thinking level (off to clear)`;
    case 'verbose':
      return `${p}verbose [on|off]: also send what the agent says while it works, before its answer`;
    case 'tasks':
      return `${p}tasks: the tasks the agent scheduled in this chat${owner ? `; ${p}tasks cancel <id> cancels one` : ''}`;
    case 'approve':
      return `${p}approve [id] [chat] / ${p}deny [id]: answer the agent's permission request (or 1, 2, 3)`;
    case 'deny':
      return '';
    case 'approvals':
      return `${p}approvals: what this chat allowed and what waits${owner ? `; ${p}approvals reset forgets the allowances` : ''}`;
    case 'help':
      return `${p}help: this list`;
  }
}

/** The /help text for `viewer` (default: the owner, who has every command). */
export function helpText(settings: CommandSettings, viewer: HelpViewer = OWNER): string {
  const p = settings.prefix;
  const owner = viewer.role === 'owner';
  const shown = visibleBuiltins(viewer);
  const lines = ['Commands:', ...shown.map((n) => builtinLine(n, p, owner)).filter(Boolean)];
  // The user's own commands, with who may use them when it is not only the owner.
  const own = visibleCustom(settings, viewer.role);
  if (own.length > 0) {
    lines.push('Your commands:');
    for (const [name, c] of own) {
      const who =
        c.access && c.access !== 'owner' ? ` (${c.access === 'member' ? 'members' : 'everyone'})` : '';
      lines.push(`${p}${name}: ${c.description ?? defaultDescription(c)}${who}`);
    }
  }
  const aliases = Object.entries(settings.aliases).filter(([, t]) => {
    const target = commandFor(t.replace(/^\//, ''), {});
    return target !== undefined && shown.includes(target);
  });
  if (aliases.length > 0) lines.push(`Aliases: ${aliases.map(([a, t]) => `${p}${a} = ${p}${t}`).join(', ')}`);
  return lines.join('\n');
}

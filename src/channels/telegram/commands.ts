// Pure: the relay's chat commands as Telegram's command menus (setMyCommands). Telegram only offers
// `/name` commands, so with another command prefix there is no menu to register. The menu every chat
// sees lists what the least trusted person who can be let in may use (core/help.ts decides, as for
// /help); each owner's private chat gets a menu of its own with every command (a chat scope: a
// private chat's id is its user's id).
import type { CommandName } from '../../core/commands.js';
import { defaultDescription } from '../../core/custom-commands.js';
import { type HelpViewer, visibleBuiltins, visibleCustom } from '../../core/help.js';
import type { DmPolicy } from '../../core/roles.js';

const DESCRIPTION: Record<CommandName, string> = {
  new: 'Start a new session (text after it is the first message)',
  stop: 'Stop the current run',
  status: 'Show the agent, session and queue',
  help: 'List the commands',
  agent: 'Show or switch the agent CLI',
  think: 'Show or set the thinking level',
  verbose: 'Show or set tool progress messages (on/off)',
  tasks: 'List or cancel the tasks the agent scheduled',
  approve: "Allow the agent's permission request (chat: for this chat)",
  deny: "Deny the agent's permission request",
  approvals: 'Show or reset what this chat allowed',
};

export type BotCommand = { command: string; description: string };

const OWNER: HelpViewer = { role: 'owner', guestCommands: [] };

/** The built-ins, then the user's own commands (`commands.<name>`), that `viewer` may use. */
export function botCommands(prefix: string, section: object = {}, viewer: HelpViewer = OWNER): BotCommand[] {
  if (prefix !== '/') return [];
  const own = visibleCustom(section, viewer.role).map(([name, c]) => ({
    command: name,
    description: c.description ?? defaultDescription(c),
  }));
  return [
    ...visibleBuiltins(viewer).map((name) => ({ command: name, description: DESCRIPTION[name] })),
    ...own,
  ];
}

export interface MenuInputs {
  prefix: string;
  /** The config's `commands` section. */
  section: object;
  dm: DmPolicy;
  allowFrom: '*' | readonly string[];
  access: { owners: readonly string[]; guests: readonly string[]; guestCommands: readonly CommandName[] };
}

/** The menus to register: the default one, and one per owner's private chat. */
export interface MenuPlan {
  everyone: BotCommand[];
  owners: { chatId: string; commands: BotCommand[] }[];
}

/** The ids an `access` list names on Telegram: entries for every channel, and `telegram:` ones. */
function onTelegram(list: readonly string[]): string[] {
  return list.flatMap((e) => {
    const i = e.indexOf(':');
    if (i <= 0) return [e];
    return e.slice(0, i) === 'telegram' ? [e.slice(i + 1)] : [];
  });
}

const USER_ID = /^\d+$/;

export function menuPlan(i: MenuInputs): MenuPlan {
  // A guest can be let in by `dm: 'everyone'` or by being named in access.guests; else the least
  // trusted person in any chat is a member.
  const guests = i.dm === 'everyone' || onTelegram(i.access.guests).length > 0;
  const everyone = botCommands(i.prefix, i.section, {
    role: guests ? 'guest' : 'member',
    guestCommands: i.access.guestCommands,
  });
  const all = botCommands(i.prefix, i.section);
  const first = i.allowFrom === '*' ? undefined : i.allowFrom.find((e) => e !== '*');
  const ids = [...new Set([...(first ? [first] : []), ...onTelegram(i.access.owners)])];
  const owners =
    all.length === 0 || sameList(all, everyone)
      ? []
      : ids.filter((id) => USER_ID.test(id)).map((chatId) => ({ chatId, commands: all }));
  return { everyone, owners };
}

const sameList = (a: readonly BotCommand[], b: readonly BotCommand[]) =>
  a.length === b.length && a.every((c, k) => c.command === b[k]?.command);

// Pure: the relay's chat commands as Telegram's command menu (setMyCommands). Telegram only offers
// `/name` commands, so with another command prefix there is no menu to register.
import { COMMAND_NAMES, type CommandName } from '../../core/commands.js';
import { customCommands, defaultDescription } from '../../core/custom-commands.js';

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

/** The built-ins, then the user's own commands (`commands.<name>`, from the `commands` section). */
export function botCommands(
  prefix: string,
  section: object = {},
): { command: string; description: string }[] {
  if (prefix !== '/') return [];
  const own = Object.entries(customCommands(section)).map(([name, c]) => ({
    command: name,
    description: c.description ?? defaultDescription(c),
  }));
  return [...COMMAND_NAMES.map((name) => ({ command: name, description: DESCRIPTION[name] })), ...own];
}

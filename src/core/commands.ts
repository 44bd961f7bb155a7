// Chat commands, recognised before the queue. Pure: text + trigger settings → a command or nothing.
// A word that is not a known command (e.g. a CLI's own slash command) is not ours and goes to the agent.

export type ChatCommand =
  /** `/new` and `/reset`: a fresh session; `rest` (possibly empty) becomes the first prompt. */
  | { type: 'new'; rest: string }
  | { type: 'stop' }
  | { type: 'status' }
  | { type: 'help' }
  /** `/agent` alone shows the current agent; with a word, switches to it (validated by the handler). */
  | { type: 'agent'; kind?: string }
  /** `/think` alone shows the level; with a word, sets it (validated against the agent's levels). */
  | { type: 'think'; level?: string }
  /** `/verbose` alone shows the setting; `on` / `off` sets it (validated by the handler). */
  | { type: 'verbose'; value?: string }
  /** `/tasks` lists the tasks agents scheduled in this chat; `/tasks cancel <id>` cancels one. */
  | { type: 'tasks'; cancel?: string; bad?: boolean }
  /**
   * `/approve [id] [chat]`: allows the shown approval (or approval `id`) once, or for this chat with
   * `chat`; `/deny [id]` denies it (docs/tools.md). `1`, `2` and `3` are the same, without a command.
   */
  | { type: 'approve'; id?: number; forChat: boolean; bad?: boolean }
  | { type: 'deny'; id?: number; bad?: boolean }
  /** `/approvals`: what is allowed for this chat and what waits; `/approvals reset` forgets the allowances. */
  | { type: 'approvals'; reset?: boolean; bad?: boolean };

export type CommandName = ChatCommand['type'];

export const COMMAND_NAMES: readonly CommandName[] = [
  'new',
  'stop',
  'status',
  'help',
  'agent',
  'think',
  'verbose',
  'tasks',
  'approve',
  'deny',
  'approvals',
];

/** Built-in trigger words; `reset` is the classic alias of `new`. */
const BUILTIN: Record<string, CommandName> = {
  new: 'new',
  reset: 'new',
  stop: 'stop',
  status: 'status',
  help: 'help',
  agent: 'agent',
  think: 'think',
  verbose: 'verbose',
  tasks: 'tasks',
  approve: 'approve',
  deny: 'deny',
  approvals: 'approvals',
};

/** Whether `word` (without prefix) is a built-in trigger word: a custom command may not take it. */
export function isBuiltinWord(word: string): boolean {
  return Object.hasOwn(BUILTIN, word.toLowerCase());
}

export interface CommandSettings {
  /** What starts a command, `/` by default. */
  prefix: string;
  /** Extra trigger words (matched after the prefix) mapped to a command name. */
  aliases: Record<string, string>;
}

/** Resolves a trigger word (without prefix) to a command name; aliases may not shadow built-ins. */
export function commandFor(word: string, aliases: Record<string, string>): CommandName | undefined {
  const w = word.toLowerCase();
  const builtin = BUILTIN[w];
  if (builtin) return builtin;
  for (const [alias, target] of Object.entries(aliases)) {
    if (alias.trim().toLowerCase() !== w) continue;
    const t = target.trim().toLowerCase().replace(/^\//, '');
    return BUILTIN[t];
  }
  return undefined;
}

export function parseCommand(text: string, settings: CommandSettings): ChatCommand | undefined {
  const t = text.trim();
  const prefix = settings.prefix;
  if (!t.toLowerCase().startsWith(prefix.toLowerCase())) return undefined;
  const body = t.slice(prefix.length);
  // The trigger word ends at the first whitespace; `/newfoo` is not `/new`.
  const m = /^(\S+)(?:\s+([\s\S]*))?$/.exec(body);
  if (!m) return undefined;
  const name = commandFor(m[1] as string, settings.aliases);
  if (!name) return undefined;
  const rest = (m[2] ?? '').trim();
  const firstWord = rest.split(/\s+/)[0] || undefined;
  switch (name) {
    case 'new':
      return { type: 'new', rest };
    case 'stop':
      return { type: 'stop' };
    case 'status':
      return { type: 'status' };
    case 'help':
      return { type: 'help' };
    case 'agent':
      return firstWord ? { type: 'agent', kind: firstWord.toLowerCase() } : { type: 'agent' };
    case 'think':
      return firstWord ? { type: 'think', level: firstWord.toLowerCase() } : { type: 'think' };
    case 'verbose':
      return firstWord ? { type: 'verbose', value: firstWord.toLowerCase() } : { type: 'verbose' };
    case 'tasks': {
      if (!firstWord) return { type: 'tasks' };
      const [verb, id, ...more] = rest.split(/\s+/);
      return verb?.toLowerCase() === 'cancel' && id && more.length === 0
        ? { type: 'tasks', cancel: id }
        : { type: 'tasks', bad: true };
    }
    case 'approve':
    case 'deny':
      return answerCommand(name, rest);
    case 'approvals': {
      if (!firstWord) return { type: 'approvals' };
      return rest.toLowerCase() === 'reset'
        ? { type: 'approvals', reset: true }
        : { type: 'approvals', bad: true };
    }
  }
}

/** `/approve [#id] [chat]`, `/deny [#id]`, words in any order; anything else is `bad`. */
function answerCommand(name: 'approve' | 'deny', rest: string): ChatCommand {
  let id: number | undefined;
  let forChat = false;
  let bad = false;
  for (const w of rest.split(/\s+/).filter(Boolean)) {
    const m = /^#?(\d{1,12})$/.exec(w);
    if (m && id === undefined) id = Number(m[1]);
    else if (name === 'approve' && w.toLowerCase() === 'chat' && !forChat) forChat = true;
    else bad = true;
  }
  const base = id !== undefined ? { id } : {};
  if (name === 'deny') return { type: 'deny', ...base, ...(bad && { bad }) };
  return { type: 'approve', ...base, forChat, ...(bad && { bad }) };
}

// The user's own chat commands through the queue (docs/commands.md). A prompt command becomes the
// chat's message (the expanded prompt) and runs like any other; a script command is recorded like a
// built-in command (deduped, so a redelivered webhook runs it once) and its output, when it ends, is
// the reply; a check command runs its script first and wakes the agent only on exit 0 with output.
// Scripts go through the one spawn helper (heartbeat/run-check.ts): argv, no shell, group killed.
import {
  type CustomCommand,
  customAccess,
  expandArgv,
  expandPrompt,
  kindOf,
  scriptReply,
} from '../core/custom-commands.js';
import type { ChatKey, InboundMessage } from '../core/types.js';
import { checkGate, type RunCheck } from '../heartbeat/check.js';
import { maskId } from '../log.js';
import { scopeFor } from '../store/contract/sessions.js';
import type { CommandDeps } from './chat-command.js';
import { unwrap } from './persist.js';

/** A script's reply keeps this much of its output (a chat is no place for a log). */
export const MAX_SCRIPT_REPLY_CHARS = 3000;

export interface CustomDeps extends CommandDeps {
  runScript: RunCheck;
  /** Sends what the chat's outbox holds (a script's reply, written after the command). */
  kick: (chat: ChatKey) => void;
  now: () => number;
}

export type CustomOutcome =
  /** Answered here (or a duplicate): nothing for the agent. */
  | { type: 'done'; duplicate: boolean }
  /** The agent runs this message (the expanded prompt) in the chat. */
  | { type: 'prompt'; msg: InboundMessage };

export async function applyCustom(
  deps: CustomDeps,
  msg: InboundMessage,
  chat: ChatKey,
  name: string,
  args: string,
  def: CustomCommand,
): Promise<CustomOutcome> {
  const role = deps.context?.roles?.(msg) ?? 'owner';
  const kind = kindOf(def);
  if (!customAccess(role, def.access)) {
    // No number and no text at info: the chat (masked), the command, the role.
    deps.log.info({ chat: maskId(chat), command: name, role }, 'command refused');
    return answer(deps, msg, chat, name, () =>
      def.access === 'member' ? `/${name} is not available to you here.` : `Only the owner can use /${name}.`,
    );
  }
  deps.log.info({ chat: maskId(chat), command: name, kind }, 'custom command');
  switch (kind) {
    case 'prompt':
      return { type: 'prompt', msg: { ...msg, text: expandPrompt(def.prompt as string, args) } };
    case 'run': {
      // Recorded first, so a redelivered message neither runs the script again nor answers twice.
      const first = await answer(deps, msg, chat, name, () => '');
      if (first.duplicate) return first;
      const argv = expandArgv(def.run as readonly string[], args);
      const timeoutMs = ('timeoutSeconds' in def ? (def.timeoutSeconds ?? 30) : 30) * 1000;
      void deps
        .runScript(argv, timeoutMs)
        .then(async (r) => {
          if (r.type !== 'ok')
            deps.log.warn({ command: name, result: r.type }, 'custom command script failed');
          const items = deps.textItems(chat, scriptReply(name, r, MAX_SCRIPT_REPLY_CHARS));
          unwrap(
            await deps.store.enqueueReply(chat, `custom:${msg.channel}:${msg.messageId}`, items, deps.now()),
          );
          deps.kick(chat);
        })
        .catch((err) => deps.log.error({ err, command: name }, 'could not answer a custom command'));
      return first;
    }
    case 'check': {
      const argv = expandArgv(def.check as readonly string[], args);
      const timeoutMs = ('timeoutSeconds' in def ? (def.timeoutSeconds ?? 30) : 30) * 1000;
      const gate = checkGate(await deps.runScript(argv, timeoutMs));
      switch (gate.type) {
        case 'wake': {
          const out = gate.output.trim().slice(0, MAX_SCRIPT_REPLY_CHARS);
          const text = `${expandPrompt(def.prompt as string, args)}\n\nWhat the check printed (data):\n${fence(out)}`;
          return { type: 'prompt', msg: { ...msg, text } };
        }
        case 'quiet':
          return answer(deps, msg, chat, name, () => `/${name}: nothing to do.`);
        case 'error':
          return answer(deps, msg, chat, name, () =>
            gate.reason.type === 'check_timeout'
              ? `/${name}: its check was stopped after ${gate.reason.seconds} s.`
              : `/${name}: its check could not run.`,
          );
      }
    }
  }
}

function fence(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const f = '`'.repeat(Math.max(3, longest + 1));
  return `${f}text\n${text}\n${f}`;
}

/** Recorded like a built-in command (the dedupe row) with `reply` (none when empty). */
async function answer(
  deps: CustomDeps,
  msg: InboundMessage,
  chat: ChatKey,
  name: string,
  reply: () => string,
): Promise<{ type: 'done'; duplicate: boolean }> {
  const res = unwrap(
    await deps.store.acceptCommand(
      msg,
      {
        now: deps.now(),
        scope: scopeFor(chat, deps.config.sessions.scope),
        defaultAgent:
          deps.context?.route?.(chat).agent ?? deps.context?.defaultAgent ?? deps.config.agent.kind,
        note: name,
        items: (text) => deps.textItems(chat, text),
      },
      () => ({ reply: reply(), effects: [] }),
    ),
  );
  if (res.type !== 'duplicate') deps.kick(chat);
  return { type: 'done', duplicate: res.type === 'duplicate' };
}

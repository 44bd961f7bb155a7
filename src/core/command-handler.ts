// What a parsed chat command does, given the chat's state: the reply and the effects to apply. Pure:
// the state is read and the effects applied by the queue and the store (store/sqlite/queue-sqlite.ts applies
// the durable ones in the transaction that records the command, so a redelivered command is neither
// applied nor answered twice; queue/chat-command.ts applies the in-memory ones). Table-tested in
// test/core/command-handler.test.ts.
import type { AgentKind } from '../agents/types.js';
import type { ChatCommand, CommandName, CommandSettings } from './commands.js';
import { helpText } from './help.js';
import type { ApprovalChoice } from './interaction-route.js';
import { agentLine, type PendingLine, pendingStatusLines, shortApproval } from './interaction-text.js';
import type { Role } from './roles.js';
import { type TaskLike, taskLine } from './task-line.js';

/** The chat's stored session for its current agent, as far as a command needs it. */
export type CommandSession =
  | { type: 'none' }
  | { type: 'expired' }
  | { type: 'active'; createdAt: number; lastUsedAt: number };

/** Whether an agent kind can run here, and its thinking levels when it can. */
export type AgentCheck = { ok: true; thinkingLevels: readonly string[] } | { ok: false; error: string };

export interface CommandState {
  now: number;
  settings: CommandSettings;
  /** The chat's own choices (`agent` unset: the default agent). */
  chat: { agent?: AgentKind; thinking?: string; verbose: boolean };
  defaultAgent: AgentKind;
  /** Kinds the config sets up: `agent.kind` and every key under `agents`. */
  configuredAgents: readonly AgentKind[];
  /** Every kind the agent registry knows (handed down: core sits below the agents layer), and every named agent. */
  knownAgents: readonly AgentKind[];
  /** The chat's agents come from named agents and routes: a refusal points there, not at `agents.<kind>`. */
  routed?: boolean;
  /** `global`: one session shared by all chats. */
  shared: boolean;
  /** The session scope of the chat (a chat key, or `*` when shared). */
  scope: string;
  session: CommandSession;
  waiting: number;
  run?: { startedAt: number; label: string };
  check(kind: AgentKind): AgentCheck;
  /** The tasks agents scheduled in this chat (docs/tools.md). */
  tasks: readonly TaskLike[];
  /**
   * The chat's warm process and the CLIs running cold after a failed warm start; set only where it
   * says something (a warm agent, a live process, or a fallback).
   */
  warm?: WarmLine;
  /** The questions and approvals the chat's runs wait on, oldest first (docs/tools.md). */
  pending?: readonly PendingLine[];
  /** The tool kinds allowed for this chat ("2 allow for this chat"). */
  allowances?: readonly string[];
  /** The command's sender is one of the chat's approvers (permissions.approvers). */
  approver?: boolean;
  isGroup?: boolean;
  /** Who gave the command: /help lists only what they may use. Absent: the owner. */
  role?: Role;
  /** The built-ins `access.guestCommands` grants guests. */
  guestCommands?: readonly CommandName[];
}

export interface WarmLine {
  process?: { kind: string; startedAt: number; lastTurnAt: number; busy: boolean; rssBytes?: number };
  fallbacks: { kind: string; reason: string }[];
}

/** The change a command makes; `null` clears a chat setting. */
export type CommandEffect =
  /** Store: forget the scope's session of one agent kind. */
  | { type: 'clear_session'; scope: string; agent: AgentKind }
  /** Run slots: a run in flight must not save its old session. */
  | { type: 'reset_scope'; scope: string }
  /** Store: the chat's waiting messages are done, not run. */
  | { type: 'drop_waiting' }
  /** Run slots: abort the chat's run. */
  | { type: 'stop_run' }
  /** Store: an agent's scheduled task in this chat is cancelled. */
  | { type: 'cancel_task'; id: string }
  /** Store: the chat's settings. */
  | { type: 'set_chat'; change: { agent?: AgentKind | null; thinking?: string | null; verbose?: boolean } }
  /**
   * Store: the approval is answered (and `allow_chat` remembers `toolKind`); queue: the run waiting
   * on it goes on with the answer.
   */
  | { type: 'answer_approval'; id: number; choice: ApprovalChoice; toolKind?: string }
  /** Store: the chat's allowances are forgotten. */
  | { type: 'reset_allowances' };

export interface CommandPlan {
  reply: string;
  effects: CommandEffect[];
}

export function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.round(s / 60);
  if (m < 120) return `${m} min`;
  const h = Math.round(m / 60);
  return h < 48 ? `${h} h` : `${Math.round(h / 24)} days`;
}

const say = (reply: string, ...effects: CommandEffect[]): CommandPlan => ({ reply, effects });

export function decideCommand(cmd: ChatCommand, s: CommandState): CommandPlan {
  const agent = s.chat.agent ?? s.defaultAgent;
  switch (cmd.type) {
    case 'new': {
      const shared = s.shared ? ' (shared by all chats)' : '';
      return say(
        cmd.rest ? `Started a fresh session${shared}.` : `Started a fresh session${shared}. What next?`,
        { type: 'clear_session', scope: s.scope, agent },
        { type: 'reset_scope', scope: s.scope },
      );
    }
    case 'stop': {
      const dropped =
        s.waiting > 0 ? ` Dropped ${s.waiting} waiting message${s.waiting > 1 ? 's' : ''}.` : '';
      return say(
        s.run ? `Stopped the agent.${dropped}` : `Nothing is running.${dropped}`,
        {
          type: 'drop_waiting',
        },
        { type: 'stop_run' },
      );
    }
    case 'status':
      return say(statusText(s, agent));
    case 'help':
      return say(
        helpText(s.settings, {
          role: s.role ?? 'owner',
          guestCommands: s.guestCommands ?? [],
          // A named approver who is not an owner sees /approve too; an owner always does.
          ...(s.approver && { approver: true }),
        }),
      );
    case 'agent':
      return switchAgent(s, agent, cmd.kind);
    case 'think':
      return setThinking(s, agent, cmd.level);
    case 'verbose':
      return setVerbose(s, cmd.value);
    case 'tasks':
      return tasksCommand(s, cmd);
    case 'approve':
    case 'deny':
      return answerApproval(s, cmd);
    case 'approvals':
      return approvalsCommand(s, cmd);
  }
}

/**
 * `/approve`, `/deny` (and `1`/`2`/`3`, which the queue turns into them): only an approver's count.
 * In a group another member's is not answered at all (it may not have been meant for the relay).
 */
function answerApproval(
  s: CommandState,
  cmd: Extract<ChatCommand, { type: 'approve' | 'deny' }>,
): CommandPlan {
  const p = s.settings.prefix;
  if (cmd.bad) return say(`Usage: ${p}approve [id] [chat], or ${p}deny [id].`);
  if (!s.approver) return say(s.isGroup ? '' : 'Only an approver can answer this (permissions.approvers).');
  const approvals = (s.pending ?? []).filter((i) => i.type === 'approval');
  const target =
    cmd.id !== undefined
      ? approvals.find((i) => i.id === cmd.id)
      : (approvals.find((i) => i.shownAt !== undefined) ?? approvals[0]);
  if (!target)
    return say(
      cmd.id !== undefined
        ? `No approval ${cmd.id} is waiting (${p}approvals lists them).`
        : 'Nothing is waiting for approval.',
    );
  const choice: ApprovalChoice = cmd.type === 'deny' ? 'deny' : cmd.forChat ? 'allow_chat' : 'allow_once';
  const what = shortApproval(target);
  const reply =
    choice === 'deny'
      ? `Denied: ${what}.`
      : choice === 'allow_chat'
        ? `Allowed for this chat from now on: ${agentLine(target.toolKind ?? 'this tool', 60)} (${p}approvals reset to undo).`
        : `Allowed once: ${what}.`;
  return say(reply, {
    type: 'answer_approval',
    id: target.id,
    choice,
    ...(target.toolKind !== undefined && { toolKind: target.toolKind }),
  });
}

function approvalsCommand(s: CommandState, cmd: Extract<ChatCommand, { type: 'approvals' }>): CommandPlan {
  const p = s.settings.prefix;
  if (cmd.bad) return say(`Usage: ${p}approvals, or ${p}approvals reset.`);
  const allowed = s.allowances ?? [];
  if (cmd.reset) {
    if (!s.approver)
      return say(s.isGroup ? '' : 'Only an approver can reset the allowances (permissions.approvers).');
    return allowed.length === 0
      ? say('Nothing was allowed for this chat.')
      : say(`Forgot ${allowed.length} allowance${allowed.length > 1 ? 's' : ''}: the agent asks again.`, {
          type: 'reset_allowances',
        });
  }
  const lines = [
    allowed.length > 0
      ? `Allowed for this chat: ${allowed.map((k) => agentLine(k, 60)).join(', ')} (${p}approvals reset forgets them).`
      : 'Nothing is allowed for this chat: the agent asks each time.',
    ...pendingStatusLines(s.pending ?? [], s.now, true),
  ];
  return say(lines.join('\n'));
}

const ON = new Set(['on', 'yes', 'true', '1']);
const OFF = new Set(['off', 'no', 'false', '0']);

function setVerbose(s: CommandState, value?: string): CommandPlan {
  if (value === undefined) {
    return say(
      s.chat.verbose
        ? 'Verbose is on: what the agent says while it works is sent as it comes. /verbose off to stop.'
        : 'Verbose is off: only the answer is sent. /verbose on to also get what the agent says while it works.',
    );
  }
  const on = ON.has(value) ? true : OFF.has(value) ? false : undefined;
  if (on === undefined) return say(`Unknown setting "${value.slice(0, 20)}": use on or off.`);
  return say(
    on
      ? 'Verbose on: what the agent says while it works is sent as it comes.'
      : 'Verbose off: only the answer is sent.',
    { type: 'set_chat', change: { verbose: on } },
  );
}

function statusText(s: CommandState, agent: AgentKind): string {
  const session =
    s.session.type === 'active'
      ? `${duration(s.now - s.session.createdAt)} old, last used ${duration(s.now - s.session.lastUsedAt)} ago`
      : s.session.type === 'expired'
        ? 'expired (the next message starts a fresh one)'
        : 'none yet (the next message starts one)';
  const { thinking, verbose } = s.chat;
  return [
    `Agent: ${agent}${thinking ? ` (thinking: ${thinking})` : ''}${verbose ? ', verbose' : ''}`,
    `Session: ${session}`,
    `Waiting messages: ${s.waiting}`,
    `Run: ${s.run ? `${s.run.label}, active for ${duration(s.now - s.run.startedAt)}` : 'idle'}`,
    ...(s.warm ? warmLines(s.warm, s.now) : []),
    ...pendingStatusLines(s.pending ?? [], s.now, false),
  ].join('\n');
}

function warmLines(w: WarmLine, now: number): string[] {
  const p = w.process;
  const mb = p?.rssBytes !== undefined ? `, ${Math.round(p.rssBytes / 1048576)} MB` : '';
  const line = p
    ? `Warm process: ${p.kind}, up ${duration(now - p.startedAt)}, ${p.busy ? 'busy' : `idle ${duration(now - p.lastTurnAt)}`}${mb}`
    : 'Warm process: none (the next message starts one)';
  const cold = w.fallbacks.map(
    (f) =>
      `${f.kind} runs cold: its warm start failed (${f.reason.slice(0, 120)}); \`agentwire agent warm-reset\` tries live again`,
  );
  return [line, ...cold];
}

function switchAgent(s: CommandState, current: AgentKind, wanted?: string): CommandPlan {
  const list = s.configuredAgents.join(', ');
  if (!wanted) return say(`This chat uses ${current}. Configured agents: ${list}.`);
  const kind = s.knownAgents.find((k) => k === wanted);
  if (!kind) return say(`Unknown agent "${wanted.slice(0, 20)}". Configured agents: ${list}.`);
  if (!s.configuredAgents.includes(kind)) {
    return say(
      s.routed
        ? `${kind} is not one of this chat's agents (its route in the config says which). Agents here: ${list}.`
        : `${kind} is not configured here (add agents.${kind} to the config). Configured agents: ${list}.`,
    );
  }
  if (kind === current) return say(`This chat already uses ${kind}.`);
  const checked = s.check(kind);
  if (!checked.ok) return say(`Cannot switch to ${kind}: ${checked.error}`);
  return say(`This chat now uses ${kind}.`, {
    type: 'set_chat',
    change: { agent: kind === s.defaultAgent ? null : kind },
  });
}

function setThinking(s: CommandState, agent: AgentKind, level?: string): CommandPlan {
  const checked = s.check(agent);
  const levels = checked.ok ? checked.thinkingLevels : [];
  if (!level) {
    if (levels.length === 0) return say(`${agent} has no thinking levels.`);
    return say(
      `Thinking: ${s.chat.thinking ?? 'default'}. Levels for ${agent}: ${levels.join(', ')} (or off).`,
    );
  }
  if (level === 'off' || level === 'default') {
    return say('Thinking level cleared: the agent uses its default.', {
      type: 'set_chat',
      change: { thinking: null },
    });
  }
  if (levels.length === 0) return say(`${agent} has no thinking levels.`);
  if (!levels.includes(level))
    return say(`Unknown level "${level.slice(0, 20)}". Levels for ${agent}: ${levels.join(', ')}.`);
  return say(`Thinking level set to ${level}.`, { type: 'set_chat', change: { thinking: level } });
}

/** /tasks: what the agent scheduled here (the `schedule_task` tool), and cancelling one. */
function tasksCommand(s: CommandState, cmd: Extract<ChatCommand, { type: 'tasks' }>): CommandPlan {
  const p = s.settings.prefix;
  if (cmd.bad) return say(`Usage: ${p}tasks, or ${p}tasks cancel <id>.`);
  if (cmd.cancel !== undefined) {
    const id = cmd.cancel.slice(0, 40);
    return s.tasks.some((t) => t.id === id)
      ? say(`Cancelled task ${id}.`, { type: 'cancel_task', id })
      : say(`No task ${id} in this chat (${p}tasks lists them).`);
  }
  if (s.tasks.length === 0) return say('No tasks are scheduled in this chat.');
  return say(
    [`Tasks (${s.tasks.length}):`, ...s.tasks.map(taskLine), `Cancel one with ${p}tasks cancel <id>.`].join(
      '\n',
    ),
  );
}

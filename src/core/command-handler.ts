// Carries out a parsed chat command against the store and the chat's lane, and says what happened.
// Synchronous on purpose: the caller runs it inside the transaction that records the command (the
// dedupe row) and writes the reply, so a redelivered command is neither applied nor answered twice.
import { AGENT_KINDS, type AgentKind } from '../agents/types.js';
import type { AgentResolver } from '../queue/ports.js';
import type { Db } from '../store/db.js';
import { markFinished, pendingForChat } from '../store/inbox.js';
import {
  clearSession,
  getChatSettings,
  getSession,
  scopeFor,
  sessionState,
  setChatSettings,
} from '../store/sessions.js';
import { type ChatCommand, type CommandSettings, helpText } from './commands.js';
import { type TaskLike, taskLine } from './task-line.js';
import type { ChatKey } from './types.js';

export interface CommandEnv {
  db: Db;
  now: number;
  settings: CommandSettings;
  defaultAgent: AgentKind;
  /** Kinds the config sets up: `agent.kind` and every key under `agents`. */
  configuredAgents: readonly AgentKind[];
  scope: 'per-chat' | 'global';
  idleMinutes: number;
  resolve: AgentResolver;
  activeRun(chat: ChatKey): { startedAt: number; label: string } | undefined;
  /** Aborts the chat's run; true when one was running. */
  stopRun(chat: ChatKey): boolean;
  /** Marks the session scope as reset, so a run in flight does not save its old session. */
  resetScope(scope: string): void;
  /** The tasks agents scheduled in a chat (docs/tools.md), inside the command's transaction. */
  tasks: { list(chat: ChatKey): TaskLike[]; cancel(chat: ChatKey, id: string): boolean };
}

export function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.round(s / 60);
  if (m < 120) return `${m} min`;
  const h = Math.round(m / 60);
  return h < 48 ? `${h} h` : `${Math.round(h / 24)} days`;
}

export function executeCommand(env: CommandEnv, chat: ChatKey, cmd: ChatCommand): string {
  const agent = getChatSettings(env.db, chat).agent ?? env.defaultAgent;
  switch (cmd.type) {
    case 'new': {
      const scope = scopeFor(chat, env.scope);
      clearSession(env.db, scope, agent);
      env.resetScope(scope);
      const shared = env.scope === 'global' ? ' (shared by all chats)' : '';
      return cmd.rest ? `Started a fresh session${shared}.` : `Started a fresh session${shared}. What next?`;
    }
    case 'stop': {
      const waiting = pendingForChat(env.db, chat).map((r) => r.id);
      markFinished(env.db, waiting, 'done', env.now, 'stopped');
      const stopped = env.stopRun(chat);
      const dropped =
        waiting.length > 0
          ? ` Dropped ${waiting.length} waiting message${waiting.length > 1 ? 's' : ''}.`
          : '';
      return stopped ? `Stopped the agent.${dropped}` : `Nothing is running.${dropped}`;
    }
    case 'status':
      return statusText(env, chat, agent);
    case 'help':
      return helpText(env.settings);
    case 'agent':
      return switchAgent(env, chat, agent, cmd.kind);
    case 'think':
      return setThinking(env, chat, agent, cmd.level);
    case 'verbose':
      return setVerbose(env, chat, cmd.value);
    case 'tasks':
      return tasksCommand(env, chat, cmd);
  }
}

/** /tasks: what the agent scheduled here (the `schedule_task` tool), and cancelling one. */
function tasksCommand(env: CommandEnv, chat: ChatKey, cmd: Extract<ChatCommand, { type: 'tasks' }>): string {
  const p = env.settings.prefix;
  if (cmd.bad) return `Usage: ${p}tasks, or ${p}tasks cancel <id>.`;
  if (cmd.cancel !== undefined) {
    const id = cmd.cancel.slice(0, 40);
    return env.tasks.cancel(chat, id)
      ? `Cancelled task ${id}.`
      : `No task ${id} in this chat (${p}tasks lists them).`;
  }
  const tasks = env.tasks.list(chat);
  if (tasks.length === 0) return 'No tasks are scheduled in this chat.';
  return [`Tasks (${tasks.length}):`, ...tasks.map(taskLine), `Cancel one with ${p}tasks cancel <id>.`].join(
    '\n',
  );
}

const ON = new Set(['on', 'yes', 'true', '1']);
const OFF = new Set(['off', 'no', 'false', '0']);

function setVerbose(env: CommandEnv, chat: ChatKey, value?: string): string {
  const current = getChatSettings(env.db, chat).verbose;
  if (value === undefined) {
    return current
      ? 'Verbose is on: what the agent says while it works is sent as it comes. /verbose off to stop.'
      : 'Verbose is off: only the answer is sent. /verbose on to also get what the agent says while it works.';
  }
  const on = ON.has(value) ? true : OFF.has(value) ? false : undefined;
  if (on === undefined) return `Unknown setting "${value.slice(0, 20)}": use on or off.`;
  setChatSettings(env.db, chat, { verbose: on }, env.now);
  return on
    ? 'Verbose on: what the agent says while it works is sent as it comes.'
    : 'Verbose off: only the answer is sent.';
}

function statusText(env: CommandEnv, chat: ChatKey, agent: AgentKind): string {
  const row = getSession(env.db, scopeFor(chat, env.scope), agent);
  const state = sessionState(row, env.now, env.idleMinutes);
  const session =
    state.type === 'active'
      ? `${duration(env.now - state.row.createdAt)} old, last used ${duration(env.now - state.row.lastUsedAt)} ago`
      : state.type === 'expired'
        ? 'expired (the next message starts a fresh one)'
        : 'none yet (the next message starts one)';
  const { thinking, verbose } = getChatSettings(env.db, chat);
  const waiting = pendingForChat(env.db, chat).length;
  const run = env.activeRun(chat);
  return [
    `Agent: ${agent}${thinking ? ` (thinking: ${thinking})` : ''}${verbose ? ', verbose' : ''}`,
    `Session: ${session}`,
    `Waiting messages: ${waiting}`,
    `Run: ${run ? `${run.label}, active for ${duration(env.now - run.startedAt)}` : 'idle'}`,
  ].join('\n');
}

function switchAgent(env: CommandEnv, chat: ChatKey, current: AgentKind, wanted?: string): string {
  const list = env.configuredAgents.join(', ');
  if (!wanted) return `This chat uses ${current}. Configured agents: ${list}.`;
  const kind = AGENT_KINDS.find((k) => k === wanted);
  if (!kind) return `Unknown agent "${wanted.slice(0, 20)}". Configured agents: ${list}.`;
  if (!env.configuredAgents.includes(kind)) {
    return `${kind} is not configured here (add agents.${kind} to the config). Configured agents: ${list}.`;
  }
  if (kind === current) return `This chat already uses ${kind}.`;
  const resolved = env.resolve(kind);
  if (!resolved.ok) return `Cannot switch to ${kind}: ${resolved.error}`;
  setChatSettings(env.db, chat, { agent: kind === env.defaultAgent ? null : kind }, env.now);
  return `This chat now uses ${kind}.`;
}

function setThinking(env: CommandEnv, chat: ChatKey, agent: AgentKind, level?: string): string {
  const resolved = env.resolve(agent);
  const levels = resolved.ok ? resolved.agent.thinkingLevels : [];
  const current = getChatSettings(env.db, chat).thinking;
  if (!level) {
    if (levels.length === 0) return `${agent} has no thinking levels.`;
    return `Thinking: ${current ?? 'default'}. Levels for ${agent}: ${levels.join(', ')} (or off).`;
  }
  if (level === 'off' || level === 'default') {
    setChatSettings(env.db, chat, { thinking: null }, env.now);
    return 'Thinking level cleared: the agent uses its default.';
  }
  if (levels.length === 0) return `${agent} has no thinking levels.`;
  if (!levels.includes(level))
    return `Unknown level "${level.slice(0, 20)}". Levels for ${agent}: ${levels.join(', ')}.`;
  setChatSettings(env.db, chat, { thinking: level }, env.now);
  return `Thinking level set to ${level}.`;
}

// A chat command through the queue: the store records it (the dedupe row), reads the chat's state and
// applies what core/command-handler.ts decides, with the reply, in one transaction. The in-memory
// effects (abort the run, close a warm process) are applied here once that transaction committed,
// never inside `decide`: the store may run `decide` more than once, and runs it whenever the
// transaction happens to run. What must hold whatever the timing is durable and checked by the
// store: /new bumps the scope's session generation, so a run that started before it cannot save
// its old session; /stop marks the running messages stopped, so an interrupted run cannot queue
// them again.
import { AGENT_KINDS } from '../agents/registry.js';
import { configuredKinds } from '../agents/resolve.js';
import type { AgentKind } from '../agents/types.js';
import {
  type CommandPlan,
  type CommandState,
  decideCommand,
  type WarmLine,
} from '../core/command-handler.js';
import type { ChatCommand, CommandSettings } from '../core/commands.js';
import { commandAccess, type RefusalReason, stopAccess } from '../core/roles.js';
import type { ChatKey, InboundMessage, OutboundItem } from '../core/types.js';
import type { Logger } from '../log.js';
import { maskId } from '../log.js';
import { scopeFor, sessionState } from '../store/contract/sessions.js';
import type { CommandSnapshot, QueueStore } from '../store/queue-ops.js';
import { chatAgent, type RunContext } from './execute.js';
import type { Interactions } from './interactions.js';
import { unwrap } from './persist.js';
import type { AgentResolver, WarmPort } from './ports.js';
import type { QueueConfig } from './queue-types.js';
import type { RunSlots } from './run-slots.js';
import { warmFor } from './warm-hooks.js';

export interface CommandDeps {
  /** The chat's route and who the sender is (absent: `agent.kind`, and everyone an owner). */
  context?: Pick<RunContext, 'defaultAgent' | 'route' | 'roles'>;
  store: QueueStore;
  runSlots: RunSlots;
  resolve: AgentResolver;
  config: QueueConfig;
  log: Logger;
  /** A reply as outbox items for the chat's channel. */
  textItems: (chat: ChatKey, text: string) => OutboundItem[];
  /** The warm pool, when agents run warm: /new closes the scope's process, /status shows it. */
  warm?: WarmPort;
  /** Questions and approvals: /approve, /deny, /approvals and the /status lines. */
  interactions?: Interactions;
}

export type CommandResult =
  | { type: 'duplicate' }
  | { type: 'applied'; firstPrompt: boolean; effects: readonly CommandPlan['effects'][number][] };

export async function applyCommand(
  deps: CommandDeps,
  msg: InboundMessage,
  chat: ChatKey,
  cmd: ChatCommand,
  now: number,
): Promise<CommandResult> {
  // `/new text` (or /new with an attachment) is also the first message of the fresh session.
  const firstPrompt =
    cmd.type === 'new' && (cmd.rest !== '' || msg.media.length > 0 || Boolean(msg.remoteMedia?.length));
  const scope = scopeFor(chat, deps.config.sessions.scope);
  const role = deps.context?.roles?.(msg) ?? 'owner';
  const granted = commandAccess(role, cmd.type, deps.config.access?.guestCommands ?? [], changesState(cmd));
  // A /stop's access hangs on whose run it is, which the store says (the run may be another
  // process's): set by `decide`, whose last call is the one that committed.
  let access = granted;
  const res = unwrap(
    await deps.store.acceptCommand(
      msg,
      {
        now,
        scope,
        defaultAgent: routed(deps, chat).agent,
        note: cmd.type,
        items: (reply) => deps.textItems(chat, reply),
        ...(firstPrompt && cmd.type === 'new' && { prompt: cmd.rest }),
      },
      // Pure: the store may call it more than once (a retried transaction), or not at all.
      (snap) => {
        access =
          granted.type === 'allowed' && cmd.type === 'stop'
            ? stopAccess(role, runOf(deps, chat, snap)?.senders, msg.senderId)
            : granted;
        if (access.type === 'refused') return { reply: refusalText(cmd.type, access.reason), effects: [] };
        const decided = decideCommand(cmd, commandState(deps, msg, chat, scope, snap, now));
        // A member's /stop in a group drops no one else's waiting messages.
        return role !== 'owner' && msg.isGroup
          ? { ...decided, effects: decided.effects.filter((e) => e.type !== 'drop_waiting') }
          : decided;
      },
    ),
  );
  if (res.type === 'duplicate') return res;
  applySlotEffects(deps, chat, res.plan);
  // No number and no text at info: the chat (masked), the command, the role and why.
  if (access.type === 'refused')
    deps.log.info({ chat: maskId(chat), command: cmd.type, role, why: access.reason }, 'command refused');
  if (
    (cmd.type === 'approve' || cmd.type === 'deny') &&
    !deps.interactions?.isApprover(msg.channel, msg.senderId)
  )
    // No body and no number at info: which chat, and why it was not taken.
    deps.log.info({ chat: maskId(chat), why: 'not_approver' }, 'answer not taken');
  // Only once the answer is durable does the run waiting on it go on.
  for (const e of res.plan.effects)
    if (e.type === 'answer_approval') deps.interactions?.answered(e.id, e.choice);
  return { type: 'applied', firstPrompt, effects: res.plan.effects };
}

function commandState(
  deps: CommandDeps,
  msg: InboundMessage,
  chat: ChatKey,
  scope: string,
  snap: CommandSnapshot,
  now: number,
): CommandState {
  const cfg = deps.config;
  const route = routed(deps, chat);
  const defaultAgent = route.agent;
  const state = sessionState(snap.session, now, cfg.sessions.idleMinutes);
  const run = runOf(deps, chat, snap);
  const current = chatAgent({ ...deps.context, defaultAgent }, chat, snap.settings.agent);
  const warm = warmLine(deps, current, scope, now);
  const { agent: _chosen, ...chatSettings } = snap.settings;
  const named = cfg.agents.list.map((a) => a.name);
  return {
    now,
    settings: cfg.commands as CommandSettings,
    chat: current === defaultAgent ? chatSettings : { ...chatSettings, agent: current },
    defaultAgent,
    configuredAgents: route.allowed,
    knownAgents: [...new Set([...AGENT_KINDS, ...route.allowed, ...named])],
    routed: named.length > 0 || (cfg.routes?.length ?? 0) > 0,
    shared: cfg.sessions.scope === 'global',
    scope,
    session:
      state.type === 'active'
        ? { type: 'active', createdAt: state.row.createdAt, lastUsedAt: state.row.lastUsedAt }
        : { type: state.type },
    waiting: snap.waiting,
    tasks: snap.tasks,
    ...(run && { run: { startedAt: run.startedAt, label: run.label } }),
    check: (kind) => {
      const r = deps.resolve(kind);
      return r.ok ? { ok: true, thinkingLevels: r.agent.thinkingLevels } : { ok: false, error: r.error };
    },
    ...(warm && { warm }),
    pending: snap.pending,
    allowances: snap.allowances,
    approver: deps.interactions?.isApprover(msg.channel, msg.senderId) ?? false,
    isGroup: msg.isGroup,
    role: deps.context?.roles?.(msg) ?? 'owner',
    guestCommands: deps.config.access?.guestCommands ?? [],
  };
}

/**
 * The chat's run: this process's, or else the one the store says another process has under way
 * (its messages `running`), so a /stop or /status typed beside the holder tells the truth.
 */
function runOf(
  deps: Pick<CommandDeps, 'runSlots'>,
  chat: ChatKey,
  snap: Pick<CommandSnapshot, 'running'>,
): { startedAt: number; label: string; senders?: readonly string[] } | undefined {
  const here = deps.runSlots.get(chat);
  if (here) return here;
  const rows = snap.running ?? [];
  if (rows.length === 0) return undefined;
  return {
    startedAt: Math.min(...rows.map((r) => r.startedAt)),
    label: rows.length > 1 ? `${rows.length} messages` : 'message',
    senders: rows.map((r) => r.senderId),
  };
}

/** The chat's route, or `agent.kind` with every configured kind as before routes. */
function routed(deps: CommandDeps, chat: ChatKey): { agent: AgentKind; allowed: readonly AgentKind[] } {
  return (
    deps.context?.route?.(chat) ?? {
      agent: deps.context?.defaultAgent ?? (deps.config.agent.kind as AgentKind),
      allowed: configuredKinds(deps.config),
    }
  );
}

/** The form of a command that changes state where its bare form only shows it. */
function changesState(cmd: ChatCommand): boolean {
  return (
    (cmd.type === 'tasks' && cmd.cancel !== undefined) || (cmd.type === 'approvals' && cmd.reset === true)
  );
}

/** One short sentence, the same for every refused attempt: it tells a prober nothing more. */
function refusalText(name: string, reason: RefusalReason): string {
  switch (reason) {
    case 'owner_only':
      return `Only the owner can use /${name}.`;
    case 'not_granted':
      return `/${name} is not available to you here.`;
    case 'not_yours':
      return 'You can only stop a run of your own messages.';
  }
}

/** What /status says of the warm pool: only where it says something. */
function warmLine(deps: CommandDeps, kind: AgentKind, scope: string, now: number): WarmLine | undefined {
  const w = warmFor(deps.warm, scope, now);
  if (!w) return undefined;
  const resolved = deps.resolve(kind);
  const isWarm = resolved.ok && resolved.agent.mode === 'warm';
  return isWarm || w.process || w.fallbacks.length > 0 ? w : undefined;
}

/** The in-memory half of a command (the store applies the durable half with the reply). */
function applySlotEffects(deps: CommandDeps, chat: ChatKey, plan: CommandPlan): void {
  for (const e of plan.effects) {
    if (e.type === 'reset_scope') {
      // /new: the scope's warm process ends with its session (after a turn still running).
      deps.warm?.close(e.scope).catch((err) => deps.log.warn({ err }, 'could not close a warm process'));
    } else if (e.type === 'stop_run') stopRun(deps, chat);
  }
}

/** Aborts the chat's run now (its process group is killed by the runner); true if one ran. */
export function stopRun(deps: Pick<CommandDeps, 'runSlots' | 'log'>, chat: ChatKey): boolean {
  const run = deps.runSlots.abort(chat, 'stop');
  if (run) deps.log.info({ chat: maskId(chat), label: run.label }, 'run stopped');
  return Boolean(run);
}

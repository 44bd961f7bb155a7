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
import type { ChatKey, InboundMessage, OutboundItem } from '../core/types.js';
import type { Logger } from '../log.js';
import { maskId } from '../log.js';
import { scopeFor, sessionState } from '../store/contract/sessions.js';
import type { CommandSnapshot, QueueStore } from '../store/queue-ops.js';
import type { Interactions } from './interactions.js';
import type { Lanes } from './lanes.js';
import { unwrap } from './persist.js';
import type { AgentResolver, WarmPort } from './ports.js';
import type { QueueConfig } from './queue-types.js';
import { warmFor } from './warm-hooks.js';

export interface CommandDeps {
  store: QueueStore;
  lanes: Lanes;
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
  const res = unwrap(
    await deps.store.acceptCommand(
      msg,
      {
        now,
        scope,
        defaultAgent: deps.config.agent.kind as AgentKind,
        note: cmd.type,
        items: (reply) => deps.textItems(chat, reply),
        ...(firstPrompt && cmd.type === 'new' && { prompt: cmd.rest }),
      },
      // Pure: the store may call it more than once (a retried transaction), or not at all.
      (snap) => decideCommand(cmd, commandState(deps, msg, chat, scope, snap, now)),
    ),
  );
  if (res.type === 'duplicate') return res;
  applyLaneEffects(deps, chat, res.plan);
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
  const defaultAgent = cfg.agent.kind as AgentKind;
  const state = sessionState(snap.session, now, cfg.sessions.idleMinutes);
  const run = deps.lanes.get(chat);
  const warm = warmLine(deps, snap.settings.agent ?? defaultAgent, scope, now);
  return {
    now,
    settings: cfg.commands as CommandSettings,
    chat: snap.settings,
    defaultAgent,
    configuredAgents: configuredKinds(cfg),
    knownAgents: AGENT_KINDS,
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
  };
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
function applyLaneEffects(deps: CommandDeps, chat: ChatKey, plan: CommandPlan): void {
  for (const e of plan.effects) {
    if (e.type === 'reset_scope') {
      // /new: the scope's warm process ends with its session (after a turn still running).
      deps.warm?.close(e.scope).catch((err) => deps.log.warn({ err }, 'could not close a warm process'));
    } else if (e.type === 'stop_run') stopRun(deps, chat);
  }
}

/** Aborts the chat's run now (its process group is killed by the runner); true if one ran. */
export function stopRun(deps: Pick<CommandDeps, 'lanes' | 'log'>, chat: ChatKey): boolean {
  const run = deps.lanes.abort(chat, 'stop');
  if (run) deps.log.info({ chat: maskId(chat), label: run.label }, 'run stopped');
  return Boolean(run);
}

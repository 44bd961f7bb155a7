// One agent run in a chat's session: pick the agent and session, run, and when the CLI says the
// stored session no longer exists (or the relay sees so first: pi's file), forget it and retry once
// in a fresh one (never in a loop, and never persisting the id a failed resume reported: that is how
// a chat gets stuck forever).
import { newSession } from '../agents/resolve.js';
import { resumeChoice, type SessionPlaces } from '../agents/session-places.js';
import type { AgentKind, AgentResult, SessionRef } from '../agents/types.js';
import type { ProgressListener } from '../core/progress-event.js';
import type { Role } from '../core/roles.js';
import { withChatMedia } from '../core/sandbox.js';
import type { ChatKey, SystemSession } from '../core/types.js';
import type { Logger } from '../log.js';
import { maskId } from '../log.js';
import { type SessionScope, scopeFor, sessionState } from '../store/contract/sessions.js';
import type { Fence } from '../store/ownership.js';
import type { KeptSession, QueueStore } from '../store/queue-ops.js';
import type { Interactions } from './interactions.js';
import { unwrap } from './persist.js';
import type {
  AgentResolver,
  Clock,
  ResolvedAgent,
  RoleResolver,
  RouteResolver,
  ToolGrantor,
} from './ports.js';
import type { ProcessOwner } from './process-owner.js';
import type { RunSlots } from './run-slots.js';

/**
 * What every run of the queue shares (a message's, a heartbeat's, a steer), built once by the queue:
 * the store, the agents, the session rules, the run slots, the chat leases, the clock and the log.
 */
export interface RunContext {
  store: QueueStore;
  resolve: AgentResolver;
  defaultAgent: AgentKind;
  scope: 'per-chat' | 'global';
  idleMinutes: number;
  runSlots: RunSlots;
  now: Clock;
  log: Logger;
  tools?: ToolGrantor;
  /** Questions and approvals to the chat (queue/interactions.ts); absent: runs ask nobody. */
  interactions?: Interactions;
  /** The chat's route (core/routes.ts): its agent and the agents it may switch to; absent: defaultAgent. */
  route?: RouteResolver;
  /** Who a sender is (core/roles.ts); absent: everyone is the owner, as before roles. */
  roles?: RoleResolver;
  /** The chat leases when processes share the store (queue/process-owner.ts). */
  owner?: ProcessOwner;
  /** The sessions this machine keeps, when a chat may move to another machine (agents/session-places.ts). */
  places?: SessionPlaces;
}

export type ExecuteOutcome =
  | { type: 'unavailable'; agent: AgentKind; error: string }
  | { type: 'no_session'; agent: AgentKind }
  | {
      type: 'ran';
      agent: AgentKind;
      cwd: string;
      result: AgentResult;
      /** The session the final attempt used. */
      session: SessionRef;
      scope: SessionScope;
      /** The scope's session generation when the run started (store/sqlite/sessions.ts). */
      generation: number;
      /** True when a stale session was dropped and the run retried in a fresh one. */
      contextReset: boolean;
      /** With contextReset: the session was kept on another machine (the chat moved here). */
      moved?: boolean;
      /** `session: 'fresh'`: the session is not kept for a next run. */
      discard?: boolean;
    };

export interface ExecuteOptions {
  allowNewSession: boolean;
  signal: AbortSignal;
  /** Default `chat`: the chat's session. `own` and `fresh` may always start one (see SystemSession). */
  session?: SystemSession;
  /** Another agent kind than the chat's, and another model than its configured one. */
  agent?: AgentKind;
  model?: string;
  /** The agent's messages before its final one, as they come (for /verbose). */
  onProgress?: (text: string) => void;
  /** What the agent is doing, for the run's status message (queue/progress-feed.ts). */
  onEvent?: ProgressListener;
  /** Names the run for its tools (outbox keys of send_message): the same when a crash redoes it. */
  runKey?: string;
  /** Who asked (the least trusted sender of the run): a member's or guest's run uses its profile. */
  role?: Role;
  /** The chat's lease the run holds: what its tools write is fenced by it. */
  fence?: Fence;
}

export async function currentAgent(
  deps: Pick<RunContext, 'store' | 'defaultAgent' | 'route'>,
  chat: ChatKey,
): Promise<AgentKind> {
  return chatAgent(deps, chat, (await deps.store.chatSettings(chat)).agent);
}

/**
 * The chat's agent: its `/agent` choice while its route still allows it (the config may have
 * changed since), else the route's agent.
 */
export function chatAgent(
  deps: Pick<RunContext, 'defaultAgent' | 'route'>,
  chat: ChatKey,
  chosen: AgentKind | undefined,
): AgentKind {
  const route = deps.route?.(chat);
  if (!route) return chosen ?? deps.defaultAgent;
  return chosen !== undefined && route.allowed.includes(chosen) ? chosen : route.agent;
}

export async function execute(
  deps: RunContext,
  chat: ChatKey,
  prompt: string,
  opts: ExecuteOptions,
): Promise<ExecuteOutcome> {
  const settings = await deps.store.chatSettings(chat);
  const kind = opts.agent ?? chatAgent(deps, chat, settings.agent);
  const resolved = deps.resolve(kind);
  if (!resolved.ok) return { type: 'unavailable', agent: kind, error: resolved.error };
  const agent = withPlace(resolved.agent, chat, opts.role);
  const mode = opts.session ?? { type: 'chat' };
  const scope: SessionScope = mode.type === 'own' ? `own:${mode.key}` : scopeFor(chat, deps.scope);
  // A job's own session, or a fresh one, is the job's to start: only the chat's is never started
  // behind the owner's back when they say so (heartbeats).
  const allowNew = opts.allowNewSession || mode.type !== 'chat';
  const stored = mode.type === 'fresh' ? undefined : await deps.store.session(scope, kind);
  const generation = stored?.generation ?? 0;
  const state =
    stored === undefined
      ? ({ type: 'none' } as const)
      : sessionState(stored.row, deps.now(), deps.idleMinutes);
  if (state.type !== 'active' && !allowNew) return { type: 'no_session', agent: kind };
  // A chat's /think choice only applies to an agent that knows the level.
  const thinking =
    settings.thinking && agent.thinkingLevels.includes(settings.thinking)
      ? settings.thinking
      : agent.base.thinking;
  // Only a warm driver under `permissions: 'ask'` calls it; any other run ignores it. Bound to the
  // run so its questions end with it.
  const approve =
    opts.runKey !== undefined ? deps.interactions?.approver(chat, opts.runKey, kind) : undefined;
  // Time spent waiting for the person (approvals, ask_user) does not count against the turn's
  // timeout, nor against its tool token's life.
  const runKey = opts.runKey;
  const interactions = deps.interactions;
  const personWaitMs = runKey !== undefined && interactions ? () => interactions.waitedMs(runKey) : undefined;
  // One tool token for the whole run, retry included; revoked when the run is done (or, should the
  // agent layer throw, at its expiry: the run's timeout plus a margin).
  const grant =
    runKey !== undefined
      ? deps.tools?.({
          chat,
          sessionKey: scope,
          runKey,
          cwd: agent.base.cwd,
          agent: kind,
          ...(opts.role !== undefined && { role: opts.role }),
          timeoutMs: agent.base.timeoutMs,
          ...(personWaitMs && { personWaitMs }),
          ...(agent.base.sandbox && { sandboxed: true }),
          ...(agent.base.permissions !== undefined && { permissions: agent.base.permissions }),
          ...(approve && { approve }),
          ...(opts.fence && { fence: opts.fence }),
        })
      : undefined;
  const done = <T>(outcome: T): T => {
    grant?.release();
    if (approve && opts.runKey !== undefined) deps.interactions?.closeRun(opts.runKey);
    return outcome;
  };
  const attempt = (session: SessionRef) =>
    agent.run(
      {
        ...agent.base,
        ...(grant && { tools: grant.server, warmTools: grant.warm }),
        ...(approve && { approve }),
        ...(personWaitMs && { personWaitMs }),
        ...(opts.model !== undefined && { model: opts.model }),
        prompt,
        session,
        thinking,
        signal: opts.signal,
        ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
        ...(opts.onEvent ? { onEvent: opts.onEvent } : {}),
      },
      { sessionKey: scope, session: mode.type },
    );

  let session: SessionRef =
    state.type === 'active' ? { type: 'resume', id: state.row.sessionId } : newSession(agent);
  // Only a session a run has succeeded in held context; losing an unconfirmed one loses nothing,
  // so the chat is not told "context was reset" about a session that may never have existed.
  const confirmed = state.type === 'active' && state.row.confirmed;
  let contextReset = false;
  let moved = false;
  const fresh = async (why: string): Promise<boolean> => {
    deps.log.warn({ chat: maskId(chat), agent: kind, confirmed }, why);
    unwrap(await deps.store.forgetSession(scope, kind));
    if (!allowNew) return false;
    session = newSession(agent);
    contextReset = confirmed;
    return true;
  };
  const places = deps.places;
  if (
    session.type === 'resume' &&
    resumeChoice(places ? 'checked' : 'none', places?.knows(session.id) ?? true) === 'fresh_moved'
  ) {
    if (!(await fresh('the session was kept on another machine; starting a fresh session')))
      return done({ type: 'no_session', agent: kind });
    moved = contextReset;
  }
  if (session.type === 'resume' && agent.sessionGone?.(session.id)) {
    if (!(await fresh('stored session is gone; starting a fresh session')))
      return done({ type: 'no_session', agent: kind });
  }
  let result = await attempt(session);
  if (
    result.type === 'error' &&
    result.kind === 'session_not_found' &&
    session.type === 'resume' &&
    !opts.signal.aborted &&
    (await fresh('stored session is gone; retrying once in a fresh session'))
  ) {
    result = await attempt(session);
  }
  // Noted before the store keeps it: a session used here is this machine's from now on.
  const used = result.sessionId ?? session.id;
  if (places && used && mode.type !== 'fresh') places.note(used);
  return done({
    type: 'ran',
    agent: kind,
    cwd: agent.base.cwd,
    result,
    session,
    scope,
    generation,
    contextReset,
    ...(moved ? { moved: true } : {}),
    ...(mode.type === 'fresh' && { discard: true }),
  });
}

/**
 * The session worth keeping after a run, if any, and whether it is confirmed (the run succeeded).
 * A failed run still keeps its id, unconfirmed: a first run that timed out mid-work may have left
 * context worth resuming, and if the CLI never created it, the next resume finds that out quietly.
 */
export function sessionToKeep(
  out: Extract<ExecuteOutcome, { type: 'ran' }>,
): { id: string; confirmed: boolean } | undefined {
  const r = out.result;
  if (r.type === 'error' && r.kind === 'session_not_found') return undefined;
  const id = r.sessionId ?? out.session.id;
  return id ? { id, confirmed: r.type === 'ok' } : undefined;
}

/**
 * The run's session to save, in the generation it started in: the store saves it only if no /new
 * bumped the scope's generation while it ran.
 */
export function keptSession(
  out: Extract<ExecuteOutcome, { type: 'ran' }>,
  touch: boolean,
): KeptSession | undefined {
  if (out.discard) return undefined;
  const keep = sessionToKeep(out);
  // A job's own session counts its check-ins as its activity; only the chat's idle clock is the owner's.
  const own = out.scope.startsWith('own:');
  return (
    keep && {
      scope: out.scope,
      agent: out.agent,
      id: keep.id,
      generation: out.generation,
      confirmed: keep.confirmed,
      touch: touch || own,
    }
  );
}

/**
 * The agent as it runs for this chat and this sender: in the chat's own folder (per-chat), and with
 * its member or guest profile when the run is not the owner's (permissions `deny` and read-only
 * unless the profile says otherwise). A run with no role (a heartbeat, a schedule) is the owner's.
 */
function withPlace(agent: ResolvedAgent, chat: ChatKey, role: Role | undefined): ResolvedAgent {
  const place = agent.place?.(chat);
  const profile = role === 'member' || role === 'guest' ? (agent.profiles?.[role] ?? {}) : undefined;
  const boxed = place?.sandbox ?? agent.base.sandbox;
  // A sandboxed run sees its own chat's received files, never another chat's.
  const sandbox =
    boxed?.type === 'bwrap' && agent.chatMedia
      ? { ...boxed, plan: withChatMedia(boxed.plan, agent.chatMedia(chat)) }
      : place?.sandbox;
  if (!place && !profile && !sandbox) return agent;
  return {
    ...agent,
    base: {
      ...agent.base,
      ...(place && { cwd: place.cwd, env: place.env, stateDir: place.stateDir }),
      ...(sandbox && { sandbox }),
      ...(profile && {
        permissions: profile.permissions ?? 'deny',
        readOnly: profile.readOnly ?? true,
        networkTools: profile.networkTools ?? false,
      }),
    },
  };
}

// One agent run in a chat's session: pick the agent and session, run, and when the CLI says the
// stored session no longer exists, forget it and retry once in a fresh one (never in a loop, and
// never persisting the id a failed resume reported: that is how a chat gets stuck forever).
import { randomUUID } from 'node:crypto';
import type { AgentKind, AgentResult, SessionRef } from '../agents/types.js';
import type { ChatKey } from '../core/types.js';
import type { Logger } from '../log.js';
import { maskId } from '../log.js';
import type { Db } from '../store/db.js';
import {
  clearSession,
  getChatSettings,
  getSession,
  type SessionScope,
  saveSession,
  scopeFor,
  sessionState,
} from '../store/sessions.js';
import type { Lanes } from './lanes.js';
import type { AgentResolver, Clock, ResolvedAgent } from './ports.js';

export interface ExecuteDeps {
  db: Db;
  resolve: AgentResolver;
  defaultAgent: AgentKind;
  scope: 'per-chat' | 'global';
  idleMinutes: number;
  lanes: Lanes;
  now: Clock;
  log: Logger;
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
      /** The scope's reset epoch when the run started. */
      epoch: number;
      /** True when a stale session was dropped and the run retried in a fresh one. */
      contextReset: boolean;
    };

export interface ExecuteOptions {
  allowNewSession: boolean;
  signal: AbortSignal;
}

/**
 * A new session reference: the relay picks a UUID where the CLI accepts one; pi's session file and
 * the CLIs that choose their own id come back as the result's `sessionId`.
 */
export function newSession(agent: Pick<ResolvedAgent, 'choosesSessionId'>): SessionRef {
  return agent.choosesSessionId === 'relay-uuid' ? { type: 'new', id: randomUUID() } : { type: 'new' };
}

export function currentAgent(deps: Pick<ExecuteDeps, 'db' | 'defaultAgent'>, chat: ChatKey): AgentKind {
  return getChatSettings(deps.db, chat).agent ?? deps.defaultAgent;
}

export async function execute(
  deps: ExecuteDeps,
  chat: ChatKey,
  prompt: string,
  opts: ExecuteOptions,
): Promise<ExecuteOutcome> {
  const settings = getChatSettings(deps.db, chat);
  const kind = settings.agent ?? deps.defaultAgent;
  const resolved = deps.resolve(kind);
  if (!resolved.ok) return { type: 'unavailable', agent: kind, error: resolved.error };
  const agent = resolved.agent;
  const scope = scopeFor(chat, deps.scope);
  const epoch = deps.lanes.epoch(scope);
  const state = sessionState(getSession(deps.db, scope, kind), deps.now(), deps.idleMinutes);
  if (state.type !== 'active' && !opts.allowNewSession) return { type: 'no_session', agent: kind };
  // A chat's /think choice only applies to an agent that knows the level.
  const thinking =
    settings.thinking && agent.thinkingLevels.includes(settings.thinking)
      ? settings.thinking
      : agent.base.thinking;
  const attempt = (session: SessionRef) =>
    agent.run({ ...agent.base, prompt, session, thinking, signal: opts.signal });

  let session: SessionRef =
    state.type === 'active' ? { type: 'resume', id: state.row.sessionId } : newSession(agent);
  let result = await attempt(session);
  let contextReset = false;
  if (
    result.type === 'error' &&
    result.kind === 'session_not_found' &&
    session.type === 'resume' &&
    !opts.signal.aborted
  ) {
    deps.log.warn(
      { chat: maskId(chat), agent: kind },
      'stored session is gone; retrying once in a fresh session',
    );
    clearSession(deps.db, scope, kind);
    if (opts.allowNewSession) {
      session = newSession(agent);
      contextReset = true;
      result = await attempt(session);
    }
  }
  return { type: 'ran', agent: kind, cwd: agent.base.cwd, result, session, scope, epoch, contextReset };
}

/** The session id worth keeping after a run, if any. */
export function sessionToKeep(out: Extract<ExecuteOutcome, { type: 'ran' }>): string | undefined {
  const r = out.result;
  if (r.type === 'error' && r.kind === 'session_not_found') return undefined;
  if (r.sessionId) return r.sessionId;
  // Without a reported id, a resumed session is still the one to resume; a new one only counts
  // when the run succeeded (a failed start may never have created it).
  if (out.session.type === 'resume') return out.session.id;
  return r.type === 'ok' ? out.session.id : undefined;
}

/** Saves the run's session unless a /new reset the scope while it ran. */
export function keepSession(
  deps: Pick<ExecuteDeps, 'db' | 'lanes' | 'now'>,
  out: Extract<ExecuteOutcome, { type: 'ran' }>,
  touch: boolean,
): void {
  if (deps.lanes.epoch(out.scope) !== out.epoch) return;
  const id = sessionToKeep(out);
  if (id) saveSession(deps.db, out.scope, out.agent, id, deps.now(), touch);
}

// The warm pool's decisions, as pure functions over plain values (table-tested in
// test/drivers/pool-policy.test.ts): where a turn goes, which process makes room, which are idle
// past their time, and whether a failed warm start means "run this CLI cold from now on".
import type { AgentKind, AgentResult, SessionRef } from '../agents/types.js';
import type { DriverSettings } from './factory.js';
import type { DriverFault } from './types.js';

/** What the policy sees of one live process. */
export interface Slot {
  lane: string;
  busy: boolean;
  /** Start-up or a turn under way, or a close already decided: never taken to make room. */
  reserved?: boolean;
  lastTurnAt: number;
}

export type Placement =
  /** A process may start now. */
  | { type: 'open' }
  /** Close this idle lane's process first, then start. */
  | { type: 'evict'; lane: string }
  /** Every process is busy: wait until one ends its turn or closes. */
  | { type: 'wait' };

/**
 * Room for a new process: under the cap, start; at the cap, close the least recently used idle
 * process; a busy one is never closed to make room, so the new turn waits (as the queue's global
 * cap makes a message wait).
 */
export function place(slots: readonly Slot[], max: number): Placement {
  if (slots.length < max) return { type: 'open' };
  let lru: Slot | undefined;
  for (const s of slots) {
    if (s.busy || s.reserved) continue;
    if (!lru || s.lastTurnAt < lru.lastTurnAt) lru = s;
  }
  return lru ? { type: 'evict', lane: lru.lane } : { type: 'wait' };
}

/** Lanes whose idle process has had no turn for `idleMs` (busy and reserved ones never). */
export function expired(slots: readonly Slot[], now: number, idleMs: number): string[] {
  return slots.filter((s) => !s.busy && !s.reserved && now - s.lastTurnAt >= idleMs).map((s) => s.lane);
}

/** What a lane's live process serves, to compare with what a turn asks for. */
export interface Serving {
  kind: AgentKind;
  /** The settings the process was started with (command, cwd, model, thinking, system text). */
  settings: string;
  /** The open session; undefined until one is open. */
  sessionId: string | undefined;
  usable: boolean;
}

/**
 * Whether the lane's process can take this turn as it is. A new session, another session, another
 * CLI or other settings (a /model or /think change, a heartbeat's own model) reopen: the process
 * is closed and a new one started, resuming the session the request names.
 */
export function reuse(live: Serving, kind: AgentKind, settings: string, session: SessionRef): boolean {
  return (
    live.usable &&
    live.kind === kind &&
    live.settings === settings &&
    session.type === 'resume' &&
    live.sessionId === session.id
  );
}

/**
 * Whether a warm start failed for a reason that says this CLI cannot run warm here, so it runs
 * cold from now on: not installed or not startable, an older version that refuses the flag or
 * exits at once, a process that never said hello. A failure about the session (gone, unreadable),
 * the account (auth, rate limit) or the turn (stopped, timed out by the owner's limit) is not: it
 * would fail cold too, or it is the chat's business, and it goes back to the queue as it is.
 */
export function isStartFailure(
  result: Extract<AgentResult, { type: 'error' }>,
  fault?: DriverFault,
): boolean {
  switch (result.kind) {
    case 'session_not_found':
    case 'auth':
    case 'rate_limit':
    case 'overloaded':
    case 'aborted':
      return false;
    case 'not_installed':
      return true;
    default:
      // exit / unparseable / timeout during start-up: the protocol hello failed. A fault recorded
      // by the driver says the process itself is unusable; without one (an error response to the
      // session request, e.g. a bad model) it is the settings, which cold would hit as well.
      return fault !== undefined;
  }
}

/**
 * The settings a process is started with; another value means another process. Tools on or off
 * count, the token does not: it is the process's own, minted when it starts (not each turn's).
 */
export function fingerprint(r: DriverSettings, tools: boolean): string {
  // The permission policy changes how the process starts (claude's prompt tool, gemini's approval
  // mode, opencode's rules, codex's thread policy).
  return JSON.stringify([
    r.command,
    r.cwd,
    r.model ?? null,
    r.thinking ?? null,
    r.systemText ?? null,
    tools,
    r.permissions ?? 'deny',
  ]);
}

/** The answer when a kind with no cold mode (an ACP agent) cannot start warm. */
export function noCold(kind: AgentKind): AgentResult {
  return {
    type: 'error',
    kind: 'exit',
    message: `The ${kind} agent has no cold mode and could not start warm.`,
    durationMs: 0,
  };
}

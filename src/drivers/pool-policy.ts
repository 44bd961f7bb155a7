// The warm pool's decisions, as pure functions over plain values (table-tested in
// test/drivers/pool-policy.test.ts): where a turn goes, which process makes room, which are idle
// past their time, and whether a failed warm start means "run this CLI cold from now on".
import type { AgentKind, AgentResult, SessionRef } from '../agents/types.js';
import type { DriverSettings } from './factory.js';
import type { DriverFault } from './types.js';

/** What the policy sees of one live process (or one session: `expired` looks at sessions). */
export interface Slot {
  /** The process's host id, or the session's key. */
  key: string;
  busy: boolean;
  /** Start-up or a turn under way, or a close already decided: never taken to make room. */
  reserved?: boolean;
  lastTurnAt: number;
  /**
   * The session's chat has work in the queue (messages waiting, or a run between claim and turn):
   * its process is about to be used, so closing it would only make that chat start another.
   */
  wanted?: boolean;
  /** Resident memory of its process group at the last sample; undefined: not measured yet. */
  rssBytes?: number;
  /** What a process of its CLI is expected to hold until it is measured. */
  expectBytes: number;
}

/**
 * What an idle warm process group of each CLI held after a few turns (docs/warm-agents.md, the
 * pinned versions), rounded up: the estimate until the pool has measured one of its own.
 */
const IDLE_MB: Record<string, number> = { claude: 290, codex: 150, pi: 170, gemini: 270, opencode: 600 };
/** Any other agent (an ACP agent we never measured): as large as the larger CLIs. */
const UNKNOWN_MB = 600;

/** The expected size of a new process: the largest of its CLI measured here, else the table. */
export function expectBytes(kind: AgentKind, measured: number | undefined): number {
  return measured ?? (IDLE_MB[kind] ?? UNKNOWN_MB) * 1024 * 1024;
}

/** What a new process asks of the pool. */
export interface Ask {
  maxProcesses: number;
  /** The memory budget over all live processes (agents.warm.maxMemoryMb). */
  maxMemoryBytes: number;
  /** What the new process is expected to hold (its CLI's largest measured, else a table). */
  expectBytes: number;
  /** Since when the chat asking has been waiting (its work became ready in the queue). */
  since: number;
  now: number;
  /** How long a chat waits for processes held by chats with work waiting (agents.warm.fairWaitSeconds). */
  fairWaitMs: number;
}

export type Placement =
  /** A process may start now. */
  | { type: 'open' }
  /** Close this idle process first (every session on it), then ask again. */
  | { type: 'evict'; key: string }
  /** Wait until a turn ends, a process closes, a chat's work is done, or `until` (the fair wait's end). */
  | { type: 'wait'; until?: number };

/** Memory a slot counts for: its last sample, else what its CLI is expected to hold. */
export const slotBytes = (s: Slot): number => s.rssBytes ?? s.expectBytes;

/**
 * Room for a new process, under the count and the memory budget (the first process always starts,
 * whatever its size: a budget smaller than one CLI would otherwise run nothing warm). When full:
 * 1. the least recently used idle process whose chat has no work waiting is closed;
 * 2. a process whose chat has work waiting is not: the new chat waits, as a message waits for the
 *    queue's global cap, until one of them is done with its backlog;
 * 3. after `fairWaitMs` the new chat stops waiting: the least recently used idle process whose chat
 *    has had a turn since the new chat began waiting is recycled (each backlog got its turn first);
 * 4. and when no process is in a turn or starting, waiting cannot end by itself (every run slot may
 *    be held by chats waiting here), so past the fair wait the least recently used idle one goes.
 * A busy or starting process is never closed to make room.
 */
export function place(slots: readonly Slot[], ask: Ask): Placement {
  const used = slots.reduce((n, s) => n + slotBytes(s), 0);
  const fits =
    slots.length < ask.maxProcesses && (slots.length === 0 || used + ask.expectBytes <= ask.maxMemoryBytes);
  if (fits) return { type: 'open' };
  const idle = slots.filter((s) => !s.busy && !s.reserved);
  const free = lru(idle.filter((s) => !s.wanted));
  if (free) return { type: 'evict', key: free.key };
  const until = ask.since + ask.fairWaitMs;
  if (ask.now < until) return { type: 'wait', until };
  const served = lru(idle.filter((s) => s.lastTurnAt >= ask.since));
  if (served) return { type: 'evict', key: served.key };
  const stuck = !slots.some((s) => s.busy || s.reserved);
  const any = stuck ? lru(idle) : undefined;
  return any ? { type: 'evict', key: any.key } : { type: 'wait' };
}

function lru(slots: readonly Slot[]): Slot | undefined {
  let out: Slot | undefined;
  for (const s of slots) if (!out || s.lastTurnAt < out.lastTurnAt) out = s;
  return out;
}

/**
 * A process over its own limit is recycled between turns: closed once its turn ended, so its
 * chat's next turn starts a new one resuming the session (a long session's history, a leak).
 */
export function overLimit(rssBytes: number | undefined, maxProcessBytes: number): boolean {
  return rssBytes !== undefined && rssBytes > maxProcessBytes;
}

/**
 * Least time between two reads of one process's memory. Every turn ends with a sample, and a
 * process that serves several chats (codex's app-server, an ACP agent) would be read once per turn
 * of each: about 1 ms a time for codex with its helpers' threads, 7 % of the relay's CPU per turn in
 * a burst (docs/performance.md). A process over its limit is then recycled at most this much later.
 */
export const SAMPLE_EVERY_MS = 1000;

/** Whether a process last read at `lastAt` (undefined: never) is read again at `now`. */
export function sampleDue(lastAt: number | undefined, now: number): boolean {
  return lastAt === undefined || now - lastAt >= SAMPLE_EVERY_MS || now < lastAt;
}

/** Sessions whose idle process has had no turn for `idleMs` (busy, reserved and wanted ones never). */
export function expired(slots: readonly Slot[], now: number, idleMs: number): string[] {
  return slots
    .filter((s) => !s.busy && !s.reserved && !s.wanted && now - s.lastTurnAt >= idleMs)
    .map((s) => s.key);
}

/** What a session's live process serves, to compare with what a turn asks for. */
export interface Serving {
  kind: AgentKind;
  /** The settings the process was started with (command, cwd, model, thinking, system text). */
  settings: string;
  /** The open session; undefined until one is open. */
  sessionId: string | undefined;
  usable: boolean;
}

/**
 * Whether the session's process can take this turn as it is. A new session, another session, another
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
    r.readOnly === true,
    r.networkTools === false,
    r.sandbox?.type ?? 'none',
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

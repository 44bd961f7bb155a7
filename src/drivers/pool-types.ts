// The warm pool's shape as its callers see it (src/drivers/pool.ts implements it): the calls, what
// `list` reports of each process, the options it is built with, and what it keeps of each process.
import type { AgentKind, AgentRequest, AgentResult, ProcessTools } from '../agents/types.js';
import type { Logger } from '../log.js';
import type { Launcher } from '../runner/launcher/client.js';
import type { GroupGuard } from '../runner/spawn-stdio.js';
import type { Built, DriverSettings } from './factory.js';
import type { HostRegistry } from './hosts.js';
import type { Serving } from './pool-policy.js';
import type { WarmDemand } from './pool-room.js';
import type { SessionDriver } from './types.js';
import type { WarmMemory } from './warm-memory.js';

export interface WarmProcessInfo {
  /** The session scope the process serves: a chat key, or `*` for the one global session. */
  sessionKey: string;
  kind: AgentKind;
  /** The process the session runs in (sessions with the same one share it). */
  host: string;
  pid?: number;
  startedAt: number;
  lastTurnAt: number;
  busy: boolean;
  rssBytes?: number;
}

/** What /status and `agentwire status` show of the pool. */
export interface WarmStatus {
  maxProcesses: number;
  /** The memory budget over all live processes, and one process's limit (bytes). */
  maxMemoryBytes?: number;
  maxProcessBytes?: number;
  /** Processes started since the pool was made. */
  starts?: number;
  /** Each session's process (its `sessionKey` unmasked here); which process hosts it is not shown. */
  processes: Omit<WarmProcessInfo, 'host'>[];
  fallbacks: { kind: AgentKind; reason: string }[];
}

/**
 * The warm pool (./pool.ts implements it; ./warm.ts starts the relay's). The queue sees it through
 * its port, queue/ports.ts `WarmPort`: the few calls a chat command or the busy policy needs.
 */
export interface WarmPool {
  /** One turn in the session's live process; opens/resumes/replaces as needed. Never throws. */
  run(sessionKey: string, kind: AgentKind, request: AgentRequest): Promise<AgentResult>;
  steer(sessionKey: string, text: string): Promise<'steered' | 'unsupported' | 'idle'>;
  /** /new: closes the session's process (after its running turn, if one runs). */
  close(sessionKey: string): Promise<void>;
  list(now: number): WarmProcessInfo[];
  fallbacks(): { kind: AgentKind; reason: string }[];
  /** Forgets a kind's failed warm start (every kind's when undefined); returns the kinds forgotten. */
  warmReset(kind?: AgentKind): Promise<AgentKind[]>;
  /** Whether the session has a live process (the queue prefers such chats: no start needed). */
  live(sessionKey: string): boolean;
  /** The queue's work, so a process whose chat has work waiting is not closed to make room. */
  attach(demand: WarmDemand): void;
  /** A chat's work is done (nothing waits): a process may have become free to close. */
  demandChanged(): void;
  /** Processes started since the pool was made (a burst's cost: one per chat that needed one). */
  starts(): number;
  status(now: number): WarmStatus;
  shutdown(graceMs: number): Promise<void>;
}

export interface PoolOptions {
  maxProcesses: number;
  /** Sessions one codex or ACP process may hold (other CLIs: one); 1 when unset. */
  sessionsPerProcess?: number;
  /** Over all live processes' memory (their process trees' RSS); default: no budget. */
  maxMemoryBytes?: number;
  /** One process above this is recycled between turns; default: no limit. */
  maxProcessBytes?: number;
  /** How long a chat waits for processes held by chats with work waiting; default 30 s. */
  fairWaitMs?: number;
  /**
   * Resolves when a process may start: after the webhooks in hand are answered
   * (runner/spawn-turn.ts). Awaited right before each start, after any wait for room.
   */
  startGate?: () => Promise<void>;
  /** How long a start may go unanswered before the CLI runs cold; default START_LIMIT_MS. */
  startLimitMs?: number;
  /** How long such a start is still waited for (an answer tries warm again); default START_TIMEOUT_MS. */
  lateStartMs?: number;
  /** After a cancel (timeout, /stop), how long a turn may take to end before its process is killed; default CANCEL_GRACE_MS. */
  cancelGraceMs?: number;
  /** A process tree's resident memory (runner/rss.ts); tests hand in their own. */
  rss?: (pid: number) => number | undefined;
  idleMs: number;
  log: Logger;
  /** The one-shot run of a kind, for fallback; undefined for a kind with no cold mode (acp). */
  cold: (kind: AgentKind, request: AgentRequest) => Promise<AgentResult> | undefined;
  /** Where failed warm starts are remembered across restarts; none: until the pool ends. */
  memory?: WarmMemory;
  /** Registers each process group with the relay's watchdog (started on first use). */
  guard?: () => GroupGuard | undefined;
  /** Processes start from it (`agents.launcher`), not from the relay: a start does not hold its loop. */
  launcher?: Launcher;
  build?: (
    kind: AgentKind,
    settings: DriverSettings,
    guard?: GroupGuard,
    hosts?: HostRegistry,
    log?: Logger,
  ) => Built;
  now?: () => number;
}

/** One live session of the pool, in a process of its own or one it shares (`host`). */
export interface Entry {
  sessionKey: string;
  kind: AgentKind;
  settings: string;
  driver: SessionDriver;
  /** The process under the session: entries with the same host share one. */
  host: string;
  sessionId: string | undefined;
  startedAt: number;
  lastTurnAt: number;
  busy: boolean;
  /** Its process tree's RSS at the last sample (between turns). */
  rssBytes?: number;
  /** Starting, or being closed: counts against the cap, never evicted. */
  reserved: boolean;
  closeAfterTurn: boolean;
  /** Texts steered into the running turn: a turn run again in a new process must carry them. */
  steered: string[];
  timer?: NodeJS.Timeout;
  /** agentwire's tools for this process: its own token, bound to each turn's run (docs/tools.md). */
  tools?: ProcessTools;
  /** Removes the tools' files once the process closed. */
  cleanup?: () => void;
}

/** What pool-policy `reuse` compares with a turn's ask. */
export function serving(e: Entry): Serving {
  const st = e.driver.state();
  return {
    kind: e.kind,
    settings: e.settings,
    sessionId: e.sessionId,
    usable: st.type === 'idle' && !e.reserved,
  };
}

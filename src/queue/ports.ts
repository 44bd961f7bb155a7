// What the queue needs from the world, injected so tests can hand it fakes at the edges: the agent
// layer (resolved per kind, with its run function), the media policy, the channels, and a clock.
import type { AgentKind, AgentRequest, AgentResult, AgentSpec } from '../agents/types.js';
import type { Channel } from '../channels/types.js';
import type { ChannelName, OutboundItem } from '../core/types.js';

/**
 * Where a run belongs: its lane (the session scope: one warm process per lane) and whose session
 * it uses (a heartbeat's `own` or `fresh` session is not the chat's). The agent layer decides from
 * it whether the run goes to the chat's warm process or runs cold.
 */
export interface RunContext {
  lane: string;
  session: 'chat' | 'own' | 'fresh';
}

/** Runs one agent request to completion (cold: runCommandReply bound to a spec; warm: the pool). */
export type AgentRun = (request: AgentRequest, ctx?: RunContext) => Promise<AgentResult>;

/**
 * The warm pool as the queue sees it (src/drivers/pool.ts implements it): no pool logic lives in the
 * queue, only the hooks a chat command or a busy-policy needs.
 */
export interface WarmPort {
  steer(lane: string, text: string): Promise<'steered' | 'unsupported' | 'idle'>;
  /** /new: the lane's process ends (after its running turn). */
  close(lane: string): Promise<void>;
  /** Ends every live process; called by the queue's shutdown, after the runs ended. */
  shutdown(graceMs: number): Promise<void>;
  /** For /status and `agentwire status`: the live processes and the CLIs that fell back to cold. */
  status?(now: number): WarmStatus;
}

export interface WarmStatus {
  maxProcesses: number;
  /** `lane` is the session scope (a chat key, or `*` for the one global session): unmasked here. */
  processes: {
    lane: string;
    kind: AgentKind;
    pid?: number;
    startedAt: number;
    lastTurnAt: number;
    busy: boolean;
    rssBytes?: number;
  }[];
  fallbacks: { kind: AgentKind; reason: string }[];
}

/** Everything fixed by config for one agent kind, plus how to run it. */
export interface ResolvedAgent {
  kind: AgentKind;
  choosesSessionId: AgentSpec['choosesSessionId'];
  thinkingLevels: readonly string[];
  /** True when a stored session is known to be gone before running (pi's session file). */
  sessionGone?: (id: string) => boolean;
  /** Request fields that do not change between runs: command, cwd, env, timeoutMs, model… */
  base: Omit<AgentRequest, 'prompt' | 'session' | 'signal' | 'onProgress'>;
  run: AgentRun;
}

export type AgentResolution = { ok: true; agent: ResolvedAgent } | { ok: false; error: string };

/** Resolves an agent kind; `ok: false` carries a short sentence fit to show the user. */
export type AgentResolver = (kind: AgentKind) => AgentResolution;

export type MediaItem = Extract<OutboundItem, { type: 'file' } | { type: 'url' }>;

export type MediaDecision =
  | { type: 'approved'; item: MediaItem }
  | { type: 'refused'; ref: string; reason: string };

/** Checks raw `MEDIA:` references an agent printed; one decision per reference, in order. */
export type MediaPolicy = (
  refs: readonly string[],
  /** `extraRoots`: folders allowed besides the configured roots (files the owner named). */
  ctx: { cwd: string; channel: ChannelName; extraRoots?: readonly string[] },
) => Promise<MediaDecision[]>;

export type ChannelMap = ReadonlyMap<ChannelName, Channel>;

export type Clock = () => number;

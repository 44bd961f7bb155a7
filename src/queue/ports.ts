// What the queue needs from the world, injected so tests can hand it fakes at the edges: the agent
// layer (resolved per kind, with its run function), the media policy, the channels, and a clock.
import type { AgentKind, AgentRequest, AgentResult, AgentSpec, ToolServer } from '../agents/types.js';
import type { Channel } from '../channels/types.js';
import type { ChannelName, ChatKey, OutboundItem } from '../core/types.js';

/** Runs one agent request to completion (the real one is runCommandReply bound to a spec). */
export type AgentRun = (request: AgentRequest) => Promise<AgentResult>;

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

/**
 * Gives one run agentwire's tools: the MCP server its CLI is told about (with a fresh per-run
 * token), and `release`, called when the run ends, after which the token is refused. Undefined when
 * the tools are off.
 */
export type ToolGrantor = (run: {
  chat: ChatKey;
  /** Stable when the same run is redone after a crash (`in:<last message id>`). */
  runKey: string;
  cwd: string;
  timeoutMs: number;
}) => { server: ToolServer; release(): void } | undefined;

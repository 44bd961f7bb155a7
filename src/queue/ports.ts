// What the queue needs from the world, injected so tests can hand it fakes at the edges: the agent
// layer (resolved per kind, with its run function), the media policy, the channels, and a clock.
import type { ResolvedAgent } from '../agents/resolve.js';
import type { AgentKind, Approver, PermissionPolicy, ToolServer, WarmTools } from '../agents/types.js';
import type { Channel } from '../channels/types.js';
import type { Role } from '../core/roles.js';
import type { ChannelName, ChatKey, OutboundItem } from '../core/types.js';
import type { WarmPool } from '../drivers/pool-types.js';
import type { Fence } from '../store/ownership.js';

export type { AgentRun, ResolvedAgent, RunContext } from '../agents/resolve.js';
export type { WarmDemand } from '../drivers/pool-room.js';
export type { WarmStatus } from '../drivers/pool-types.js';

/**
 * The warm pool as the queue sees it (drivers/pool-types.ts `WarmPool`, which the pool implements):
 * no pool logic lives in the queue, only the hooks a chat command or the busy policy needs.
 * `shutdown` is called by the queue's shutdown, after the runs ended; `live` lets the queue run
 * chats with a live process first (queue/affinity.ts); `attach` hands it the queue's work once.
 */
export type WarmPort = Pick<WarmPool, 'steer' | 'close' | 'shutdown'> &
  Partial<Pick<WarmPool, 'status' | 'live' | 'attach' | 'demandChanged'>>;

/** A chat's agent by its route (core/routes.ts), and the agents `/agent` may switch it to. */
export type RouteResolver = (chat: ChatKey) => { agent: AgentKind; allowed: readonly AgentKind[] };

/** Who a sender is in a chat (core/roles.ts): owner, member or guest. */
export type RoleResolver = (who: { channel: ChannelName; senderId: string; isGroup: boolean }) => Role;

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
 * token), the same for a warm process (`warm`: a token per process, bound to this run per turn),
 * and `release`, called when the run ends, after which the token is refused. Undefined when the
 * tools are off.
 */
export type ToolGrantor = (run: {
  chat: ChatKey;
  /** The run's session key (session scope): only a warm process of this key may be bound to it. */
  sessionKey: string;
  /** Stable when the same run is redone after a crash (`in:<last message id>`). */
  runKey: string;
  cwd: string;
  /** The run's agent id (send_to_agent speaks for it). */
  agent?: string;
  /** Who asked (a member's or guest's run may not reach other agents); unset: a system run. */
  role?: 'owner' | 'member' | 'guest';
  timeoutMs: number;
  /** Time the run has waited for a person so far: the grant lives that much longer. */
  personWaitMs?: () => number;
  /** The run is sandboxed: its tools get a socket of their own (docs/access.md). */
  sandboxed?: boolean;
  /** The run's permission policy and Approver: they decide the user's own tools' calls. */
  permissions?: PermissionPolicy;
  approve?: Approver;
  /** The chat's lease the run holds: the tools' writes carry it (store/ownership.ts). */
  fence?: Fence;
}) => { server: ToolServer; warm: WarmTools; release(): void } | undefined;

// What the queue needs from the world, injected so tests can hand it fakes at the edges: the agent
// layer (resolved per kind, with its run function), the media policy, the channels, and a clock.
import type { ResolvedAgent } from '../agents/resolve.js';
import type { AgentKind } from '../agents/types.js';
import type { Channel } from '../channels/types.js';
import type { ChannelName, OutboundItem } from '../core/types.js';

export type { AgentRun, ResolvedAgent } from '../agents/resolve.js';

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

// What the queue is built with and what it reports (src/queue/queue.ts).
import type { SessionPlaces } from '../agents/session-places.js';
import type { Config } from '../config/schema.js';
import type { ProgressSettings } from '../config/schema-progress.js';
import type { ChunkRules } from '../core/chunk.js';
import type { ChannelName, ChatKey } from '../core/types.js';
import type { RunCheck } from '../heartbeat/check.js';
import type { Logger } from '../log.js';
import type { Launcher } from '../runner/launcher/client.js';
import type { InteractionStore } from '../store/interactions.js';
import type { QueueStore } from '../store/queue-ops.js';
import type { DeliveryOptions } from './delivery.js';
import type { Timer } from './interactions.js';
import type {
  AgentResolver,
  ChannelMap,
  Clock,
  MediaPolicy,
  RoleResolver,
  RouteResolver,
  ToolGrantor,
  WarmPort,
  WarmStatus,
} from './ports.js';
import type { ProcessOwner } from './process-owner.js';
import type { ProgressPort } from './progress-port.js';
import type { ActiveRun, RunSlots } from './run-slots.js';

export type QueueConfig = Pick<Config, 'agent' | 'agents' | 'queue' | 'sessions' | 'commands' | 'delivery'> &
  Partial<Pick<Config, 'access' | 'routes'>>;

export interface QueueOptions {
  /** The durable state, through the queue's store operations (store/sqlite/queue-sqlite.ts for SQLite). */
  store: QueueStore;
  channels: ChannelMap;
  resolve: AgentResolver;
  mediaPolicy: MediaPolicy;
  config: QueueConfig;
  log: Logger;
  /** The agent working folder used for media checks when a chat's agent cannot be resolved. */
  defaultCwd: string;
  now?: Clock;
  delivery?: DeliveryOptions;
  /** IANA zone for times in collected prompts. */
  timeZone?: string;
  /** First wait before writing again when the store refuses a write (a full disk); doubles to 30 s. */
  storeRetryMs?: number;
  /**
   * Store inbound messages but run nothing (a short-lived `agentwire send` that holds the channel):
   * what arrives waits in the store for the relay's next start.
   */
  hold?: boolean;
  /**
   * The splitter's rules for a channel (its plug-in's textRules under this config), also when the
   * channel does not run in this process. Handed in by the composition root (relay.ts).
   */
  textRules?: (channel: ChannelName) => ChunkRules | undefined;
  /** The warm pool, when agents run warm: /new closes a lane's process, shutdown ends them all. */
  warm?: WarmPort;
  /** Each chat's agent by its route (`routes`); absent: `agent.kind`, as before routes. */
  route?: RouteResolver;
  /** Runs a custom command's script (default: the one spawn helper, the check environment). */
  runScript?: RunCheck;
  /**
   * The relay's launcher (`agents.launcher`): the default `runScript` starts scripts from it, as the
   * agents' runs do. Absent: they start from this process.
   */
  launcher?: Launcher;
  /** Who a sender is (owner, member, guest); absent: everyone is the owner, as before roles. */
  roles?: RoleResolver;
  /**
   * This process's ownership (queue/process-owner.ts) when other processes share the store: a chat
   * runs only under its lease, and each run-side write carries the lease's fence. Absent: the queue
   * is the store's one user (tests, `agentwire heartbeat`).
   */
  owner?: ProcessOwner;
  /** The sessions this machine keeps (agents/session-places.ts): absent when a chat stays on it. */
  places?: SessionPlaces;
  /**
   * The lead whose holder sends a channel's replies (`channel:whatsapp`: the socket's), for a channel
   * whose sends need what only one process runs; undefined for the others (sent under the chat's lease).
   */
  sendLead?: (channel: string) => string | undefined;
  /**
   * Each run's live status message (docs/sessions-and-queue.md, "Progress"): the channel side, and
   * each channel section's settings (undefined: off). Absent: no run has one.
   */
  progress?: { port: ProgressPort; settings(channel: ChannelName): ProgressSettings | undefined };
  /** agentwire's MCP tools for each run (docs/tools.md); absent: runs get no tools. */
  tools?: ToolGrantor;
  /**
   * Questions and approvals to the chats (queue/interactions.ts, docs/tools.md); absent: runs ask
   * nobody (a warm agent under `ask` is then denied by its driver's own policy).
   */
  interactions?: {
    store: InteractionStore;
    /** permissions.approvers; undefined: the owner. */
    approvers: readonly string[] | undefined;
    /** permissions.timeoutMinutes, in ms. */
    approvalTimeoutMs: number;
    /** permissions.settleSeconds, in ms. */
    settleMs?: number;
    /** The owner's sender id on a channel (queue/owner.ts). */
    owner(channel: ChannelName): string | undefined;
    /** `access.owners`: approvers by default too. */
    owners?: readonly string[];
    /** Tests drive the timeouts. */
    timer?: Timer;
  };
}

export interface QueueStatus {
  policy: Config['queue']['whileBusy'];
  maxConcurrentRuns: number;
  active: { chat: ChatKey; kind: ActiveRun['kind']; label: string; startedAt: number; messages: number }[];
  waiting: Record<string, number>;
  unsentReplies: number;
  /** Live warm processes and cold fallbacks, when agents run warm. */
  warm?: WarmStatus;
}

/** What `status` shows: the runs now, what waits, what is unsent, the warm processes. */
export async function queueStatus(
  opts: Pick<QueueOptions, 'config' | 'warm'>,
  runSlots: RunSlots,
  store: Pick<QueueStore, 'pendingByChat' | 'countUnsent'>,
  now: number,
): Promise<QueueStatus> {
  return {
    policy: opts.config.queue.whileBusy,
    maxConcurrentRuns: runSlots.maxConcurrent,
    active: runSlots.runs().map(([chat, r]) => ({
      chat,
      kind: r.kind,
      label: r.label,
      startedAt: r.startedAt,
      messages: r.ids.length,
    })),
    waiting: await store.pendingByChat(),
    unsentReplies: await store.countUnsent(),
    ...(opts.warm?.status && { warm: opts.warm.status(now) }),
  };
}

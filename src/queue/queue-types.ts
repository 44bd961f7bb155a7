// What the queue is built with and what it reports (src/queue/queue.ts).
import type { Config } from '../config/schema.js';
import type { ChunkRules } from '../core/chunk.js';
import type { ChannelName, ChatKey } from '../core/types.js';
import type { Logger } from '../log.js';
import type { Db } from '../store/db.js';
import type { DeliveryOptions } from './delivery.js';
import type { ActiveRun } from './lanes.js';
import type { AgentResolver, ChannelMap, Clock, MediaPolicy } from './ports.js';

export type QueueConfig = Pick<Config, 'agent' | 'agents' | 'queue' | 'sessions' | 'commands' | 'delivery'>;

export interface QueueOptions {
  db: Db;
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
}

export interface QueueStatus {
  policy: Config['queue']['whileBusy'];
  maxConcurrentRuns: number;
  active: { chat: ChatKey; kind: ActiveRun['kind']; label: string; startedAt: number; messages: number }[];
  waiting: Record<string, number>;
  unsentReplies: number;
}

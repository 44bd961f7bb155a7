// How the relay's composition root builds the scheduler: one call with what the relay already has
// (config, paths, env, logger, the store, the queue as SystemRunner, the WhatsApp self-chat), and
// the control-socket methods to register. Everything here is the real thing: system clock, real
// pre-check runner on the spawn helper. `heartbeatService` has the shape of the core's
// ServiceFactory (src/relay.ts SERVICE_FACTORIES), so wiring it is one line there.

import type { ChannelPlugin } from '../channels/plugin.js';
import { CHANNELS } from '../channels/registry.js';
import { queuedBecause } from '../channels/send-state.js';
import type { Channel } from '../channels/types.js';
import type { Config } from '../config/schema.js';
import { type ChannelName, type ChatKey, chatKey, parseChatKey } from '../core/types.js';
import type { JobStateStore } from '../store/job-states.js';
import type { StatusFacts, StatusReader } from '../store/status-read.js';
import type { TaskStore } from '../store/tasks.js';
import { HEARTBEAT_METHOD, type HeartbeatMethodResult } from './control.js';
import { type Leadership, type LedScheduler, ledScheduler } from './leader.js';
import { createRelayScheduler, type RelayScheduler, type RelaySchedulerInput } from './relay-scheduler.js';

export {
  createRelayScheduler,
  type RelayScheduler,
  type RelaySchedulerInput,
  SCHEDULES_METHOD,
} from './relay-scheduler.js';

/**
 * The default check-in chat of a channel running in this relay (WhatsApp: the linked number's
 * self-chat), asked of its plug-in with the channel's live state. The last one seen is kept, so a
 * reconnect does not leave heartbeats without a target.
 */
export function channelDefaultTarget(
  channels: ReadonlyMap<ChannelName, Pick<Channel, 'status'>>,
  config: Config,
  facts: StatusFacts | undefined,
  plugins: readonly ChannelPlugin[] = CHANNELS,
): () => ChatKey | undefined {
  let last: ChatKey | undefined;
  return () => {
    for (const p of plugins) {
      const running = channels.get(p.name);
      if (!p.defaultTarget || !running) continue;
      const id = p.defaultTarget({ config, ...(facts && { facts }), state: running.status() });
      if (id) {
        last = chatKey(p.name, id);
        return last;
      }
    }
    return last;
  };
}

/** What the core's relay hands a background service (structurally its ServiceDeps). */
export interface ServiceDepsLike extends Omit<RelaySchedulerInput, 'defaultTarget' | 'states' | 'stored'> {
  store: { jobStates: JobStateStore; status: StatusReader; tasks: TaskStore };
  channels: ReadonlyMap<ChannelName, Pick<Channel, 'status'>>;
  control: { register(name: string, handler: (params: unknown) => Promise<unknown>): void };
  /** Called with a listener for "an agent's stored tasks changed" (the tools). */
  onTasksChanged?: (listener: () => void) => void;
  /**
   * The process's ownership of the store (queue/process-owner.ts): given, the scheduler runs only
   * while this process leads `scheduler` (heartbeat/leader.ts); absent, whenever the service runs.
   */
  leader?: Leadership;
}

/** The heartbeat and schedules as a relay service: add it to SERVICE_FACTORIES in src/relay.ts. */
export const heartbeatService = {
  name: 'heartbeat',
  async create(deps: ServiceDepsLike): Promise<{ start(): Promise<void>; stop(): Promise<void> }> {
    const { jobStates } = deps.store;
    // What the store held at start (e.g. WhatsApp's linked number before its first connection); a
    // running channel's own state wins once it has one (channelDefaultTarget).
    const facts = await deps.store.status.read().catch(() => undefined);
    const input = {
      ...deps,
      defaultTarget: channelDefaultTarget(deps.channels, deps.config, facts),
      tasks: deps.store.tasks,
      // The relay fires the tasks of the channels it runs; `agentwire chat` fires the console's.
      servesTasks: (chat: ChatKey) => {
        const c = parseChatKey(chat)?.channel;
        return c !== undefined && deps.channels.has(c);
      },
    };
    const run = deps.leader
      ? ledScheduler(input, jobStates, deps.leader)
      : unled(createRelayScheduler({ ...input, stored: await jobStates.loadAll(), states: jobStates }));
    deps.onTasksChanged?.(() => run.syncTasks());
    const { methods } = run;
    const fire = methods[HEARTBEAT_METHOD] as (p: unknown) => Promise<HeartbeatMethodResult>;
    // "Sent" would not be true for a reply whose channel cannot deliver it now (e.g. WhatsApp
    // waiting for a relink): the caller is told it is queued, and why, as `agentwire send` is.
    methods[HEARTBEAT_METHOD] = async (p) => withQueued(await fire(p), deps.channels);
    for (const [name, handler] of Object.entries(methods)) deps.control.register(name, handler);
    return {
      start: async () => run.start(),
      // No new runs from here on, and no waiting: runs under way are the queue's to finish or kill
      // in its shutdown, which the relay does next. A run killed by shutdown is left as begun in the
      // store (a one-shot is tried again at the next start); a save that finds the store closed is logged.
      stop: async () => run.stop(),
    };
  },
};

/** A scheduler that runs whenever the service does (no leader lease: one process on the store). */
function unled(r: RelayScheduler): Omit<LedScheduler, 'leading'> {
  return {
    methods: r.methods,
    start: async () => r.scheduler.start(),
    stop: async () => r.scheduler.stop(),
    syncTasks: () => void r.scheduler.syncTasks(),
  };
}

/** A sent heartbeat's reply, with why it waits when its channel cannot deliver it now. */
export function withQueued(
  r: HeartbeatMethodResult,
  channels: ReadonlyMap<ChannelName, Pick<Channel, 'status'>>,
): HeartbeatMethodResult {
  if (r.type !== 'sent') return r;
  const target = parseChatKey(r.chat);
  const channel = target && channels.get(target.channel);
  const queued = target && channel ? queuedBecause(target.channel, channel.status()) : undefined;
  return queued ? { ...r, queued } : r;
}

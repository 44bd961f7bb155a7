// How the relay's composition root builds the scheduler: one call with what the relay already has
// (config, paths, env, logger, the store, the queue as SystemRunner, the WhatsApp self-chat), and
// the control-socket methods to register. Everything here is the real thing: system clock, real
// pre-check runner on the spawn helper. `heartbeatService` has the shape of the core's
// ServiceFactory (src/relay.ts SERVICE_FACTORIES), so wiring it is one line there.
import type { Channel } from '../channels/types.js';
import { linkedAccount } from '../channels/whatsapp/link-state.js';
import type { Paths } from '../config/paths.js';
import type { Config } from '../config/schema.js';
import { queuedBecause } from '../control/send-state.js';
import { type ChannelName, type ChatKey, parseChatKey, type SystemRunner } from '../core/types.js';
import type { Logger } from '../log.js';
import type { Db } from '../store/db.js';
import { taskStore } from '../store/tasks.js';
import { systemClock } from './clock.js';
import { HEARTBEAT_METHOD, type HeartbeatMethodResult, heartbeatMethod } from './control.js';
import { checkEnv, createRunCheck } from './run-check.js';
import { createScheduler, type Scheduler } from './scheduler.js';
import { scheduleMigration } from './state.js';

export const SCHEDULES_METHOD = 'schedules';

export interface RelaySchedulerInput {
  config: Config;
  paths: Paths;
  env: NodeJS.ProcessEnv;
  /** The scheduler's own logger (a child of the relay's). */
  log: Logger;
  /** The relay's store, opened with `scheduleMigration` among its migrations. */
  db: Db;
  /** The queue. */
  runner: SystemRunner;
  /** The linked WhatsApp self-chat (e.g. `whatsapp:+15551234567`) once known; undefined before. */
  defaultTarget: () => ChatKey | undefined;
  /** Agents' tasks of these chats are fired here (absent: none are). */
  servesTasks?: (chat: ChatKey) => boolean;
}

export interface RelayScheduler {
  scheduler: Scheduler;
  /** Control-socket methods: `heartbeat` ({to?, dryRun?} → outcome) and `schedules` (() → status). */
  methods: Record<string, (params: unknown) => Promise<unknown>>;
}

export function createRelayScheduler(i: RelaySchedulerInput): RelayScheduler {
  const runCheck = createRunCheck({
    env: checkEnv(i.env, i.config.agent.env),
    cwd: i.config.agent.cwd ?? i.paths.workspace,
  });
  const scheduler = createScheduler({
    runner: i.runner,
    clock: systemClock,
    db: i.db,
    log: i.log,
    runCheck,
    config: i.config,
    defaultTarget: i.defaultTarget,
    ...(i.servesTasks && { tasks: { ...taskStore(i.db), serves: i.servesTasks } }),
  });
  return {
    scheduler,
    methods: {
      [HEARTBEAT_METHOD]: heartbeatMethod(scheduler),
      [SCHEDULES_METHOD]: async () => scheduler.status(),
    },
  };
}

/**
 * The linked WhatsApp number's self-chat, from the WhatsApp channel's status (`connected` carries
 * the account's E.164). The last one seen is kept, so a reconnect does not leave heartbeats
 * without a target.
 */
export function whatsappSelfChat(
  channels: ReadonlyMap<ChannelName, Pick<Channel, 'status'>>,
  stored: () => string | undefined = () => undefined,
): () => ChatKey | undefined {
  let last: ChatKey | undefined;
  return () => {
    const s = channels.get('whatsapp')?.status();
    if (s?.type === 'connected' && s.account) last = `whatsapp:${s.account}`;
    if (!last && channels.has('whatsapp')) {
      // Before the first connection after a restart: the linked number kept in the store.
      const account = stored();
      if (account) return `whatsapp:${account}`;
    }
    return last;
  };
}

/** What the core's relay hands a background service (structurally its ServiceDeps). */
export interface ServiceDepsLike extends Omit<RelaySchedulerInput, 'defaultTarget'> {
  channels: ReadonlyMap<ChannelName, Pick<Channel, 'status'>>;
  control: { register(name: string, handler: (params: unknown) => Promise<unknown>): void };
  /** Called with a listener for "an agent's stored tasks changed" (the tools). */
  onTasksChanged?: (listener: () => void) => void;
}

/** The heartbeat and schedules as a relay service: add it to SERVICE_FACTORIES in src/relay.ts. */
export const heartbeatService = {
  name: 'heartbeat',
  migrations: [scheduleMigration],
  create(deps: ServiceDepsLike): { start(): Promise<void>; stop(): Promise<void> } {
    const { scheduler, methods } = createRelayScheduler({
      ...deps,
      defaultTarget: whatsappSelfChat(deps.channels, () => safeLinkedAccount(deps.db)),
      // The relay fires the tasks of the channels it runs; `agentwire chat` fires the console's.
      servesTasks: (chat) => {
        const c = parseChatKey(chat)?.channel;
        return c !== undefined && deps.channels.has(c);
      },
    });
    deps.onTasksChanged?.(() => void scheduler.syncTasks());
    const fire = methods[HEARTBEAT_METHOD] as (p: unknown) => Promise<HeartbeatMethodResult>;
    // "Sent" would not be true for a reply whose channel cannot deliver it now (e.g. WhatsApp
    // waiting for a relink): the caller is told it is queued, and why, as `agentwire send` is.
    methods[HEARTBEAT_METHOD] = async (p) => withQueued(await fire(p), deps.channels);
    for (const [name, handler] of Object.entries(methods)) deps.control.register(name, handler);
    return {
      start: async () => scheduler.start(),
      // No new runs from here on, and no waiting: runs under way are the queue's to finish or kill
      // in its shutdown, which the relay does next. A run killed by shutdown is left as begun in the
      // store (a one-shot is tried again at the next start); a save that finds the store closed is logged.
      stop: async () => scheduler.stop(),
    };
  },
};

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

/** The linked number, or nothing when the WhatsApp tables are absent (WhatsApp disabled). */
function safeLinkedAccount(db: Db): string | undefined {
  try {
    return linkedAccount(db);
  } catch {
    return undefined;
  }
}

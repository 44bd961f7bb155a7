// The composition root: config → store → channels → queue → runner. Channels and background
// services (heartbeats, schedules) plug in through the two factory lists below; nothing else in the
// core knows which channels exist.
import { randomUUID } from 'node:crypto';
import type { ChannelDeps, ChannelPlugin } from './channels/plugin.js';
import { CHANNELS, channelNames, channelPlugin } from './channels/registry.js';
import type { Channel } from './channels/types.js';
import { whatsappLinkService } from './channels/whatsapp/link-control.js';
import type { Context } from './cli/context.js';
import { ExitError } from './cli/context.js';
import type { Paths } from './config/paths.js';
import type { Config } from './config/schema.js';
import { acquireLock, heldBy, LockError } from './control/lock.js';
import { MethodRegistry, registerCoreMethods } from './control/methods.js';
import { type ControlServer, startControlServer } from './control/server.js';
import type { ChannelName, ChatKey, SystemRunner } from './core/types.js';
import { storedDefaultTarget } from './heartbeat/target.js';
import { heartbeatService } from './heartbeat/wiring.js';
import type { Logger } from './log.js';
import { stagingService } from './media/staging-service.js';
import { linkAlertService } from './ops/alert/wiring.js';
import { agentResolver, mediaPolicy } from './queue/adapters.js';
import type { ChannelMap } from './queue/ports.js';
import { Queue, type QueueOptions } from './queue/queue.js';
import { channelStateStore } from './store/channel-state.js';
import { CORE_MIGRATIONS } from './store/core.js';
import { type Db, type Migration, openDb } from './store/db.js';
import { retentionService } from './store/retention-service.js';
import { webConsoleService } from './web/service.js';

/** What every part the relay starts is handed. */
export interface RelayDeps {
  config: Config;
  paths: Paths;
  log: Logger;
  db: Db;
  env: NodeJS.ProcessEnv;
}

/**
 * A channel the relay may start: a plugin of src/channels/registry.ts, or (in tests) the same shape
 * built by hand around a fake edge.
 */
export type ChannelFactory = Pick<ChannelPlugin, 'name' | 'enabled' | 'migrations'> &
  Partial<Pick<ChannelPlugin, 'textRules'>> & {
    create: (deps: ChannelDeps) => Channel | Promise<Channel>;
  };

export interface ServiceDeps extends RelayDeps {
  /** Runs in a chat's lane without queuing, and delivers through the outbox (heartbeats). */
  runner: SystemRunner;
  channels: ChannelMap;
  /** Register control-socket methods (e.g. `heartbeat`) here before the relay starts listening. */
  control: MethodRegistry;
}

export interface RelayService {
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface ServiceFactory {
  name: string;
  migrations?: readonly Migration[];
  create: (deps: ServiceDeps) => RelayService;
}

/**
 * Background services started with the relay: the web console, heartbeats and schedules, retention,
 * the sweep of staged media copies no unsent reply needs, the SMS alert when WhatsApp stays down,
 * and relinking WhatsApp through the control socket.
 */
export const SERVICE_FACTORIES: readonly ServiceFactory[] = [
  webConsoleService(),
  heartbeatService,
  retentionService,
  stagingService,
  linkAlertService,
  whatsappLinkService,
];

/** The queue over real agents and the real media policy (shared by `relay` and `chat`). */
export function createQueue(
  ctx: Context,
  db: Db,
  channels: ChannelMap,
  extra: Pick<QueueOptions, 'hold' | 'textRules'> = {},
): Queue {
  const { config, paths, env, log } = ctx;
  return new Queue({
    db,
    channels,
    resolve: agentResolver(config, paths, env, log.child({ sub: 'agent' })),
    mediaPolicy: mediaPolicy(config, paths.stagedMedia),
    config,
    log: log.child({ sub: 'queue' }),
    defaultCwd: paths.workspace,
    textRules: (channel) => channelPlugin(channel)?.textRules(config),
    ...extra,
  });
}

/**
 * The core's SystemRunner in a process that runs no channel (e.g. `agentwire heartbeat` when no
 * relay is running): runs use the chat's session as usual; what it delivers waits in the outbox
 * until a relay with that channel starts.
 */
export async function openDirectRunner(
  ctx: Context,
  migrations: readonly Migration[] = [],
): Promise<{ runner: SystemRunner; defaultTarget: () => ChatKey | undefined; close: () => Promise<void> }> {
  const db = openDb(ctx.paths.db, [
    ...CORE_MIGRATIONS,
    ...CHANNELS.flatMap((p) => p.migrations ?? []),
    ...migrations,
  ]);
  const queue = createQueue(ctx, db, new Map());
  return {
    runner: queue,
    defaultTarget: () => storedDefaultTarget(ctx.config, db),
    close: async () => {
      await queue.shutdown(0);
      db.close();
    },
  };
}

export interface RunningRelay {
  queue: Queue;
  channels: ChannelMap;
  /** Stops taking work, lets runs finish up to `graceMs`, kills the rest, closes everything. */
  stop(graceMs: number): Promise<void>;
}

export interface RelayOptions {
  channels?: readonly ChannelFactory[];
  services?: readonly ServiceFactory[];
}

/** Starts the relay, or throws ExitError with a clear sentence when it cannot. */
export async function startRelay(ctx: Context, opts: RelayOptions = {}): Promise<RunningRelay> {
  const { config, paths, log } = ctx;
  const enabled = (opts.channels ?? CHANNELS).filter((f) => f.enabled(config));
  if (enabled.length === 0) {
    const sections = channelNames(false).replace(/\w[\w-]*/g, (n) => `${n}.enabled`);
    throw new ExitError(
      1,
      `No channel is enabled in ${paths.configFile}: set ${sections} to true.\n` +
        'To talk to the agent from this terminal instead, run: agentwire chat',
    );
  }
  const lock = await acquireLock(paths.lock, paths.home).catch((err: unknown) => {
    if (err instanceof LockError) throw new ExitError(1, `Cannot start: ${err.message}.`);
    throw err;
  });
  if (!lock.ok) {
    throw new ExitError(
      1,
      `Another relay (${heldBy(lock)}) is already running for ${paths.home}; only one may own the channels.`,
    );
  }
  const cleanup: (() => Promise<void> | void)[] = [() => lock.release()];
  const undo = async () => {
    for (const f of cleanup.reverse()) await f();
  };
  try {
    const services = opts.services ?? SERVICE_FACTORIES;
    const migrations = [
      ...CORE_MIGRATIONS,
      ...enabled.flatMap((f) => f.migrations ?? []),
      ...services.flatMap((s) => s.migrations ?? []),
    ];
    const db = openDb(paths.db, migrations);
    cleanup.push(() => db.close());
    const deps: RelayDeps = { config, paths, log, db, env: ctx.env };
    const channels = new Map<ChannelName, Channel>();
    for (const f of enabled) {
      const state = channelStateStore(db, f.name);
      channels.set(f.name, await f.create({ ...deps, log: log.child({ sub: f.name }), state }));
    }
    // The splitter's rules: the started channels' own plug-ins first, then the registry's.
    const textRules = (name: ChannelName) =>
      (enabled.find((f) => f.name === name)?.textRules ?? channelPlugin(name)?.textRules)?.(config);
    const queue = createQueue(ctx, db, channels, { textRules });
    // Recovery before any channel delivers: a message left mid-run must run before newer ones.
    queue.start();
    cleanup.push(() => queue.shutdown(0));
    const control = new MethodRegistry();
    registerCoreMethods(control, { queue, channels, startedAt: Date.now(), newKey: () => randomUUID() });
    const running = services.map((s) =>
      s.create({ ...deps, log: log.child({ sub: s.name }), runner: queue, channels, control }),
    );
    for (const ch of channels.values()) {
      await ch.start(queue.handleInbound);
      cleanup.push(() => ch.stop());
    }
    queue.deliverer.wake();
    for (const s of running) {
      await s.start();
      cleanup.push(() => s.stop());
    }
    const server: ControlServer = await startControlServer(
      paths.socket,
      control,
      log.child({ sub: 'control' }),
    );
    log.info({ channels: [...channels.keys()], pid: process.pid }, 'relay started');
    let stopping: Promise<void> | undefined;
    return {
      queue,
      channels,
      stop: (graceMs) => {
        stopping ??= (async () => {
          log.info({ graceMs }, 'relay stopping');
          await server.close();
          for (const s of running) await s.stop().catch((err) => log.error({ err }, 'service stop failed'));
          await queue.shutdown(graceMs);
          for (const ch of channels.values())
            await ch.stop().catch((err) => log.error({ err }, 'channel stop failed'));
          db.close();
          await lock.release();
          log.info('relay stopped');
        })();
        return stopping;
      },
    };
  } catch (err) {
    await undo();
    throw err;
  }
}

/**
 * Runs until SIGINT or SIGTERM, then stops the relay with `graceMs` for running agents. A second
 * signal ends the grace period at once (the runs left are killed and stay waiting in the store).
 */
export function stopOnSignals(relay: RunningRelay, graceMs: number, log: Logger): Promise<void> {
  return new Promise<void>((resolve) => {
    let signals = 0;
    const onSignal = (signal: NodeJS.Signals) => {
      signals++;
      log.info({ signal }, signals === 1 ? 'shutting down' : 'second signal: stopping now');
      if (signals === 1) void relay.stop(graceMs).then(resolve);
      else for (const [chat] of relay.queue.lanes.runs()) relay.queue.lanes.abort(chat, 'shutdown');
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}

// The composition root: config → store → channels → queue → runner. Channels and background
// services (heartbeats, schedules) plug in through the two factory lists below; nothing else in the
// core knows which channels exist.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { twilioMigration } from './channels/twilio/store.js';
import type { Channel, ChannelState } from './channels/types.js';
import { whatsappLinkService } from './channels/whatsapp/link-control.js';
import { linkedAccount } from './channels/whatsapp/link-state.js';
import { whatsappMigration } from './channels/whatsapp/migration.js';
import type { Context } from './cli/context.js';
import { ExitError } from './cli/context.js';
import type { Paths } from './config/paths.js';
import type { Config } from './config/schema.js';
import { acquireLock, heldBy, LockError } from './control/lock.js';
import { MethodError, MethodRegistry, registerCoreMethods } from './control/methods.js';
import { type ControlServer, startControlServer } from './control/server.js';
import type { ChannelName, ChatKey, SystemRunner } from './core/types.js';
import { heartbeatService } from './heartbeat/wiring.js';
import type { Logger } from './log.js';
import { mediaHostMigration } from './media/host.js';
import { stagingService } from './media/staging-service.js';
import { linkAlertService } from './ops/alert/wiring.js';
import { agentResolver, mediaPolicy } from './queue/adapters.js';
import type { ChannelMap } from './queue/ports.js';
import { Queue, type QueueOptions } from './queue/queue.js';
import { CORE_MIGRATIONS } from './store/core.js';
import { type Db, type Migration, openDb } from './store/db.js';
import { retentionService } from './store/retention-service.js';
import { ToolError } from './tools/handlers.js';
import { createToolHost, type ToolHost } from './tools/host.js';
import { TOOLS_METHOD } from './tools/schemas.js';
import { webConsoleService } from './web/service.js';

export interface ChannelDeps {
  config: Config;
  paths: Paths;
  log: Logger;
  db: Db;
  env: NodeJS.ProcessEnv;
}

/** A channel the relay may start, with the tables it owns. */
export interface ChannelFactory {
  name: Exclude<ChannelName, 'console'>;
  enabled: (config: Config) => boolean;
  migrations?: readonly Migration[];
  create: (deps: ChannelDeps) => Channel | Promise<Channel>;
}

// The one exception to static imports (login, logout and send follow it for the same libraries): a
// channel's code, and the library under it, is loaded only when the channel is enabled. Baileys alone costs about 165 ms of start-up and 55 MB of memory
// (the twilio SDK about 60 ms and 30 MB) in a relay that never uses it, and a bigger process makes
// every agent spawn slower (docs/performance.md). Their tables' migrations stay static and light.
/** The channels `agentwire relay` knows. */
export const CHANNEL_FACTORIES: readonly ChannelFactory[] = [
  {
    name: 'whatsapp',
    enabled: (c) => c.whatsapp.enabled,
    migrations: [whatsappMigration],
    create: async (d) => {
      const { createWhatsAppChannel, renderTerminalQr } = await import('./channels/whatsapp/index.js');
      return createWhatsAppChannel({
        config: d.config,
        paths: d.paths,
        db: d.db,
        log: d.log,
        onState: showLinkQr(d.log, renderTerminalQr),
      });
    },
  },
  {
    name: 'twilio',
    enabled: (c) => c.twilio.enabled,
    migrations: [twilioMigration, mediaHostMigration],
    create: async (d) => {
      const { createTwilioChannel } = await import('./channels/twilio/channel.js');
      return createTwilioChannel({ config: d.config, paths: d.paths, db: d.db, log: d.log, env: d.env });
    },
  },
];

export interface ServiceDeps extends ChannelDeps {
  /** Runs in a chat's lane without queuing, and delivers through the outbox (heartbeats). */
  runner: SystemRunner;
  channels: ChannelMap;
  /** Register control-socket methods (e.g. `heartbeat`) here before the relay starts listening. */
  control: MethodRegistry;
  /** Called with a listener for "an agent's stored tasks changed" (the tools, docs/tools.md). */
  onTasksChanged: (listener: () => void) => void;
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

/**
 * While WhatsApp is not linked, the QR code to scan is drawn in the terminal when a person watches
 * it (the web console shows it too, for a relay running as a service).
 */
function showLinkQr(
  log: Logger,
  renderTerminalQr: (qr: string) => Promise<string>,
): (state: ChannelState) => void {
  let last: string | undefined;
  return (state) => {
    if (state.type !== 'connecting' || !state.qr || state.qr === last) return;
    last = state.qr;
    log.info(
      'WhatsApp is not linked: scan the QR code with WhatsApp > Linked devices (or open the web console)',
    );
    if (!process.stdout.isTTY) return;
    void renderTerminalQr(state.qr).then((qr) => process.stdout.write(`${qr}\n`));
  };
}

/** The queue over real agents and the real media policy (shared by `relay` and `chat`). */
export function createQueue(
  ctx: Context,
  db: Db,
  channels: ChannelMap,
  extra: Pick<QueueOptions, 'hold'> & { tools?: ToolHost } = {},
): Queue {
  const { config, paths, env, log } = ctx;
  const { tools, ...rest } = extra;
  const queue = new Queue({
    db,
    channels,
    resolve: agentResolver(config, paths, env, log.child({ sub: 'agent' })),
    mediaPolicy: mediaPolicy(config, paths.stagedMedia),
    config,
    log: log.child({ sub: 'queue' }),
    defaultCwd: paths.workspace,
    ...(tools?.grantor && { tools: tools.grantor }),
    ...rest,
  });
  tools?.bindDelivery((chat) => queue.deliverer.kick(chat));
  return queue;
}

/** `agentwire mcp` as this install runs it: this Node and the built entry point, when there is one. */
export function agentwireEntry(): { command: string; args: string[] } | undefined {
  const bin = fileURLToPath(new URL('./cli/bin.js', import.meta.url));
  return existsSync(bin) ? { command: process.execPath, args: [bin] } : undefined;
}

/**
 * The tools for the runs of this process, answering on `socket` (docs/tools.md). `entry` defaults
 * to this install's; without one (running from source) runs get no tools, and the log says so.
 */
export function createTools(
  ctx: Context,
  db: Db,
  channels: ChannelMap,
  socket: string,
  entry = agentwireEntry(),
): ToolHost {
  const { config, paths, log } = ctx;
  if (config.tools.enabled && !entry)
    log.warn('agentwire is not built (no cli/bin.js next to this file): runs get no tools');
  return createToolHost({
    enabled: config.tools.enabled,
    limits: config.tools,
    db,
    mediaPolicy: mediaPolicy(config, paths.stagedMedia),
    textLimit: (channel) => channels.get(channel)?.textLimit ?? 1600,
    socket,
    ...(entry && { entry }),
    timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
  });
}

/** `tools.call` on a control registry: a ToolError is the agent's to read, anything else is logged. */
export function registerToolsMethod(control: MethodRegistry, tools: ToolHost): void {
  control.register(TOOLS_METHOD, (params) =>
    tools.call(params).catch((err: unknown) => {
      throw err instanceof ToolError ? new MethodError(err.message) : err;
    }),
  );
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
  const db = openDb(ctx.paths.db, [...CORE_MIGRATIONS, whatsappMigration, ...migrations]);
  const queue = createQueue(ctx, db, new Map());
  return {
    runner: queue,
    defaultTarget: () => {
      const account = ctx.config.whatsapp.enabled ? linkedAccount(db) : undefined;
      return account ? `whatsapp:${account}` : undefined;
    },
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
  /** How runs start `agentwire mcp` (tests running from source point it at dist/). */
  toolsEntry?: { command: string; args: string[] };
}

/** Starts the relay, or throws ExitError with a clear sentence when it cannot. */
export async function startRelay(ctx: Context, opts: RelayOptions = {}): Promise<RunningRelay> {
  const { config, paths, log } = ctx;
  const enabled = (opts.channels ?? CHANNEL_FACTORIES).filter((f) => f.enabled(config));
  if (enabled.length === 0) {
    throw new ExitError(
      1,
      `No channel is enabled in ${paths.configFile}: set whatsapp.enabled or twilio.enabled to true.\n` +
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
    const deps: ChannelDeps = { config, paths, log, db, env: ctx.env };
    const channels = new Map<ChannelName, Channel>();
    for (const f of enabled)
      channels.set(f.name, await f.create({ ...deps, log: log.child({ sub: f.name }) }));
    const tools = createTools(ctx, db, channels, paths.socket, opts.toolsEntry ?? agentwireEntry());
    const queue = createQueue(ctx, db, channels, { tools });
    // Recovery before any channel delivers: a message left mid-run must run before newer ones.
    queue.start();
    cleanup.push(() => queue.shutdown(0));
    const control = new MethodRegistry();
    registerCoreMethods(control, { queue, channels, startedAt: Date.now(), newKey: () => randomUUID() });
    registerToolsMethod(control, tools);
    const running = services.map((s) =>
      s.create({
        ...deps,
        log: log.child({ sub: s.name }),
        runner: queue,
        channels,
        control,
        onTasksChanged: tools.onTasksChanged,
      }),
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

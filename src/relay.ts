// The composition root: config → store → channels → queue → runner. Channels plug in through the
// registry (src/channels/registry.ts), background services (heartbeats, schedules) through
// SERVICE_FACTORIES below; nothing else in the core knows which channels exist.
import { randomUUID } from 'node:crypto';
import type { ChannelDeps, ChannelPlugin } from './channels/plugin.js';
import { CHANNELS, channelNames, channelPlugin } from './channels/registry.js';
import { CHANNEL_STOP_MS, stopWithin } from './channels/stop-within.js';
import type { Channel } from './channels/types.js';
import { whatsappLinkService } from './channels/whatsapp/link-control.js';
import type { Context } from './cli/context.js';
import { ExitError } from './cli/context.js';
import { channelLease, sharedTasksChanged, startOwner } from './cli/ownership.js';
import { type HeldSignals, holdSignals } from './cli/signals.js';
import { mediaRoot, type Paths } from './config/paths.js';
import type { Config } from './config/schema.js';
import { configWarnings } from './config/warnings.js';
import { MethodRegistry, registerCoreMethods } from './control/methods.js';
import { type ControlServer, startControlServer } from './control/server.js';
import type { ChannelName, ChatKey, SystemRunner } from './core/types.js';
import { eventsService } from './events/service.js';
import { storedDefaultTarget } from './heartbeat/target.js';
import { heartbeatService } from './heartbeat/wiring.js';
import type { Logger } from './log.js';
import { sharedFolderCheck } from './media/shared-check.js';
import { stagingService } from './media/staging-service.js';
import { linkAlertService } from './ops/alert/wiring.js';
import type { ChannelMap } from './queue/ports.js';
import type { ProcessOwner } from './queue/process-owner.js';
import type { Queue } from './queue/queue.js';
import { createQueue } from './relay-queue.js';
import { agentwireEntry, createTools, registerToolsMethod } from './relay-tools.js';
import { type Launcher, startLauncher } from './runner/launcher/client.js';
import { availabilityWatch } from './store/availability.js';
import { acquireLock, heldBy, LockError } from './store/home-lock.js';
import { openStore, type Store, storeConfigFor } from './store/open.js';
import { retentionService } from './store/retention-service.js';
import type { ToolHost, ToolsEntry } from './tools/host.js';
import { HttpRoutes } from './web/routes.js';
import { webConsoleService } from './web/service.js';

export { createQueue } from './relay-queue.js';
export { agentwireEntry, createTools, registerToolsMethod } from './relay-tools.js';

/** What every part the relay starts is handed. */
export interface RelayDeps {
  config: Config;
  paths: Paths;
  log: Logger;
  store: Store;
  env: NodeJS.ProcessEnv;
  /**
   * The launcher (`agents.launcher`), absent when off: what a service or channel starts (a
   * heartbeat's pre-check, a voice note's transcriber) starts from it, as the agents do.
   */
  launcher?: Launcher;
}

/**
 * A channel the relay may start: a plugin of src/channels/registry.ts, or (in tests) the same shape
 * built by hand around a fake edge.
 */
export type ChannelFactory = Pick<ChannelPlugin, 'name' | 'enabled'> &
  Partial<Pick<ChannelPlugin, 'textRules' | 'single' | 'sendsThroughSingle'>> & {
    create: (deps: ChannelDeps) => Channel | Promise<Channel>;
  };

export interface ServiceDeps extends RelayDeps {
  /** Runs in a chat's run slot without queuing, and delivers through the outbox (heartbeats). */
  runner: SystemRunner;
  channels: ChannelMap;
  /** Register control-socket methods (e.g. `heartbeat`) here before the relay starts listening. */
  control: MethodRegistry;
  /** Called with a listener for "an agent's stored tasks changed" (the tools, docs/tools.md). */
  onTasksChanged: (listener: () => void) => void;
  /** Called with a listener for "send_to_agent stored a request" (the events runner). */
  onEventsStored: (listener: () => void) => void;
  /** Routes served on the web console's HTTP server before its token check (the hooks). */
  http: HttpRoutes;
  /**
   * This process's leases and notices (queue/process-owner.ts): the scheduler runs while it leads
   * `scheduler`, the events runner while it leads `events`.
   */
  leader: Pick<ProcessOwner, 'lead' | 'claimLeads' | 'tell' | 'on'>;
}

export interface RelayService {
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface ServiceFactory {
  name: string;
  /** May read the store first (e.g. the scheduler's stored state) before the relay goes on. */
  create: (deps: ServiceDeps) => RelayService | Promise<RelayService>;
}

/**
 * Background services started with the relay: the web console, heartbeats and schedules, retention,
 * the sweep of staged media copies no unsent reply needs, the SMS alert when WhatsApp stays down,
 * and relinking WhatsApp through the control socket.
 */
export const SERVICE_FACTORIES: readonly ServiceFactory[] = [
  webConsoleService(),
  heartbeatService,
  eventsService,
  retentionService,
  stagingService,
  linkAlertService,
  whatsappLinkService,
];

/**
 * The core's SystemRunner in a process that runs no channel (e.g. `agentwire heartbeat` when no
 * relay is running): runs use the chat's session as usual; what it delivers waits in the outbox
 * until a relay with that channel starts.
 */
export async function openDirectRunner(ctx: Context): Promise<{
  runner: SystemRunner;
  store: Store;
  defaultTarget: () => ChatKey | undefined;
  close: () => Promise<void>;
}> {
  const store = await openStore(storeConfigFor(ctx.paths, ctx.config.store));
  const queue = createQueue(ctx, store, new Map());
  // Read once: this process runs no channel that could link or unlink meanwhile.
  const facts = await store.status.read().catch(() => undefined);
  const target = storedDefaultTarget(ctx.config, facts);
  return {
    runner: queue,
    store,
    defaultTarget: () => target,
    close: async () => {
      await queue.shutdown(0);
      await store.close();
    },
  };
}

export interface RunningRelay {
  queue: Queue;
  channels: ChannelMap;
  /** The agent tools this relay serves (its tokens: tests mint one as a run would). */
  tools: ToolHost;
  /** Stops taking work, lets runs finish up to `graceMs`, kills the rest, closes everything. */
  stop(graceMs: number): Promise<StopReport>;
}

export interface StopReport {
  /** Channels still stopping when the relay gave up waiting (channels/stop-within.ts). */
  lateChannels: string[];
}

export interface RelayOptions {
  channels?: readonly ChannelFactory[];
  services?: readonly ServiceFactory[];
  /** How runs start `agentwire mcp` (tests running from source point it at dist/). */
  toolsEntry?: ToolsEntry;
}

/** Starts the relay, or throws ExitError with a clear sentence when it cannot. */
export async function startRelay(ctx: Context, opts: RelayOptions = {}): Promise<RunningRelay> {
  const { config, paths, log } = ctx;
  const enabled = (opts.channels ?? CHANNELS).filter((f) => f.enabled(config));
  if (enabled.length === 0) {
    const sections = channelNames(false, (n) => `${n}.enabled`);
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
  for (const w of configWarnings(config)) log.warn({ key: w.path }, w.message);
  const cleanup: (() => Promise<void> | void)[] = [() => lock.release()];
  const undo = async () => {
    for (const f of cleanup.reverse()) await f();
  };
  try {
    const launcher = config.agents.launcher ? relayLauncher(log) : undefined;
    if (launcher) cleanup.push(() => launcher.stop());
    const services = opts.services ?? SERVICE_FACTORIES;
    const opened = await openStore(storeConfigFor(paths, config.store));
    cleanup.push(() => opened.close());
    // A store that goes away (a PostgreSQL server down) is said once, and its return once: every
    // loop meets the failure on its own and handles it (a webhook answers 503, the queue retries).
    const store = availabilityWatch({
      down: (error) =>
        log.error(
          { error },
          'the store cannot be reached: webhooks answer 503 (senders retry) and runs wait until it is back',
        ),
      up: (downForMs) => log.warn({ downForMs }, 'the store is reachable again; carrying on'),
    }).store(opened);
    // `agentwire chat` may run beside the relay on this state folder: chats are run under leases.
    const owner = await startOwner(ctx, store, 'relay');
    cleanup.push(() => owner.stop());
    if (config.store.engine === 'postgres') {
      // Files are named by path in the rows every process reads: said once when the folder is not shared.
      const check = sharedFolderCheck({
        dir: mediaRoot(paths),
        me: owner.id,
        processes: () => store.ownership.processes(),
        log: log.child({ sub: 'files' }),
        everyMs: owner.timings.renewMs,
      });
      await check.start();
      cleanup.push(() => check.stop());
    }
    const deps: RelayDeps = { config, paths, log, store, env: ctx.env, ...(launcher && { launcher }) };
    const channels = new Map<ChannelName, Channel>();
    // Set once the queue exists: a channel whose process just became its one consumer sends what
    // waited for it (replies nobody could send while no process held it).
    let consumerGained: () => void = () => undefined;
    const singles = new Set<string>();
    for (const f of enabled) {
      const state = store.channelState(f.name);
      const single = f.single?.(config) ? channelLease(owner, f.name, () => consumerGained()) : undefined;
      if (single && f.sendsThroughSingle) singles.add(f.name);
      channels.set(
        f.name,
        await f.create({ ...deps, log: log.child({ sub: f.name }), state, ...(single && { single }) }),
      );
    }
    // The splitter's rules: the started channels' own plug-ins first, then the registry's.
    const textRules = (name: ChannelName) =>
      (enabled.find((f) => f.name === name)?.textRules ?? channelPlugin(name)?.textRules)?.(config);
    // The runs' tools answer on a socket of their own: a run's environment never names the
    // control socket, whose `send` reaches any number with any file.
    const tools = createTools(
      ctx,
      store,
      channels,
      paths.toolsSocket,
      opts.toolsEntry ?? agentwireEntry(),
      textRules,
      owner,
      launcher,
    );
    const control = new MethodRegistry();
    const queue = createQueue(ctx, store, channels, {
      textRules,
      tools,
      owner,
      control,
      sendLead: (channel) => (singles.has(channel) ? `channel:${channel}` : undefined),
      ...(launcher && { launcher }),
    });
    consumerGained = () => void queue.deliverer.kickAll().catch(() => undefined);
    // Recovery before any channel delivers: a message left mid-run must run before newer ones.
    await queue.start();
    cleanup.push(() => queue.shutdown(0));
    registerCoreMethods(control, {
      queue,
      channels,
      startedAt: Date.now(),
      newKey: () => randomUUID(),
      parts: (key) => store.repliesFor(key),
    });
    const toolsControl = new MethodRegistry();
    registerToolsMethod(toolsControl, tools);
    const running: RelayService[] = [];
    const tasksChanged = sharedTasksChanged(owner, tools);
    const http = new HttpRoutes();
    for (const s of services)
      running.push(
        await s.create({
          ...deps,
          log: log.child({ sub: s.name }),
          runner: queue,
          channels,
          control,
          onTasksChanged: tasksChanged,
          leader: owner,
          onEventsStored: tools.onEventsStored,
          http,
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
    const toolsServer = await startControlServer(
      paths.toolsSocket,
      toolsControl,
      log.child({ sub: 'tools' }),
    );
    cleanup.push(() => toolsServer.close());
    cleanup.push(() => tools.close());
    // The owner's controls: a call from an agent's run (its environment or a parent's carries a
    // run mark) is refused, so a prompt cannot talk the agent into them.
    const server: ControlServer = await startControlServer(
      paths.socket,
      control,
      log.child({ sub: 'control' }),
      {
        callers: 'owner',
      },
    );
    log.info({ channels: [...channels.keys()], pid: process.pid }, 'relay started');
    let stopping: Promise<StopReport> | undefined;
    return {
      queue,
      channels,
      tools,
      stop: (graceMs) => {
        stopping ??= (async () => {
          log.info({ graceMs }, 'relay stopping');
          await server.close();
          for (const s of running) await s.stop().catch((err) => log.error({ err }, 'service stop failed'));
          await queue.shutdown(graceMs);
          // After the runs: a run finishing in the grace period may still call a tool.
          await toolsServer.close();
          await tools.close();
          const late: string[] = [];
          for (const ch of channels.values())
            if ((await stopWithin(ch, CHANNEL_STOP_MS, log)) === 'late') late.push(ch.name);
          // After the runs: what is still running from it is killed with it.
          await launcher?.stop();
          await owner.stop();
          await store.close();
          await lock.release();
          log.info('relay stopped');
          return { lateChannels: late };
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
 * The launcher the agents' processes start from (`agents.launcher`), forked first thing: the fork
 * copies this process, cheap only while it is small (before the store, channels and queue load). A
 * launcher that dies is said once per death; the next run forks a new one. `agentwire chat` starts
 * one too.
 */
export function relayLauncher(log: Logger): Launcher {
  return startLauncher({
    onDied: (message) =>
      log.warn(
        { sub: 'launcher', reason: message },
        'the launcher died: its runs failed; the next run starts a new one',
      ),
  });
}

/**
 * Runs until SIGINT or SIGTERM, then stops the relay with `graceMs` for running agents. A second
 * signal ends the grace period at once (the runs left are killed and stay waiting in the store).
 */
export function stopOnSignals(
  relay: RunningRelay,
  graceMs: number,
  log: Logger,
  /** The listener since before the relay started (cli/signals.ts): what came meanwhile is handled first. */
  signals: HeldSignals = holdSignals(),
): Promise<StopReport> {
  return new Promise<StopReport>((resolve) => {
    let count = 0;
    signals.handle((signal) => {
      count++;
      log.info({ signal }, count === 1 ? 'shutting down' : 'second signal: stopping now');
      if (count === 1) void relay.stop(graceMs).then(resolve);
      else for (const [chat] of relay.queue.runSlots.runs()) relay.queue.runSlots.abort(chat, 'shutdown');
    });
  });
}

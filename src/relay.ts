// The composition root: config → store → channels → queue → runner. Channels plug in through the
// registry (src/channels/registry.ts), background services (heartbeats, schedules) through
// SERVICE_FACTORIES below; nothing else in the core knows which channels exist.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChannelDeps, ChannelPlugin } from './channels/plugin.js';
import { CHANNELS, channelCapabilities, channelNames, channelPlugin } from './channels/registry.js';
import type { Channel } from './channels/types.js';
import { whatsappLinkService } from './channels/whatsapp/link-control.js';
import type { Context } from './cli/context.js';
import { ExitError } from './cli/context.js';
import { sharedTasksChanged, startOwner } from './cli/ownership.js';
import type { Paths } from './config/paths.js';
import type { Config } from './config/schema.js';
import { progressSettings } from './config/schema-progress.js';
import { configWarnings } from './config/warnings.js';
import { MethodError, MethodRegistry, registerCoreMethods } from './control/methods.js';
import { type ControlServer, openRunSocket, startControlServer } from './control/server.js';
import { type ChunkRules, channelRules } from './core/chunk.js';
import type { ChannelName, ChatKey, SystemRunner } from './core/types.js';
import { startWarmPool } from './drivers/warm.js';
import { WARM_RESET_METHOD, WARM_STATE, warmMemory } from './drivers/warm-memory.js';
import { chatResolver } from './events/resolve.js';
import { eventsService } from './events/service.js';
import { storedDefaultTarget } from './heartbeat/target.js';
import { heartbeatService } from './heartbeat/wiring.js';
import type { Logger } from './log.js';
import { stagingService } from './media/staging-service.js';
import { linkAlertService } from './ops/alert/wiring.js';
import { confinedRoots, roleResolver, routeResolver } from './queue/access.js';
import { agentResolver, mediaPolicy } from './queue/adapters.js';
import { fencedReplies } from './queue/fenced-replies.js';
import { ownerOf } from './queue/owner.js';
import type { ChannelMap } from './queue/ports.js';
import type { ProcessOwner } from './queue/process-owner.js';
import { outboxProgress } from './queue/progress-outbox.js';
import { Queue, type QueueOptions } from './queue/queue.js';
import { compileCacheDir, compileCacheEnv } from './runner/compile-cache.js';
import { acquireLock, heldBy, LockError } from './store/home-lock.js';
import { openStore, type Store, storeConfigFor } from './store/open.js';
import { retentionService } from './store/retention-service.js';
import { ToolError } from './tools/handlers.js';
import { createToolHost, type ToolHost, type ToolMethods } from './tools/host.js';
import { TOOLS_LIST_METHOD, TOOLS_METHOD } from './tools/schemas.js';
import { createUserTools } from './tools/user-tools.js';
import { HttpRoutes } from './web/routes.js';
import { webConsoleService } from './web/service.js';

/** What every part the relay starts is handed. */
export interface RelayDeps {
  config: Config;
  paths: Paths;
  log: Logger;
  store: Store;
  env: NodeJS.ProcessEnv;
}

/**
 * A channel the relay may start: a plugin of src/channels/registry.ts, or (in tests) the same shape
 * built by hand around a fake edge.
 */
export type ChannelFactory = Pick<ChannelPlugin, 'name' | 'enabled'> &
  Partial<Pick<ChannelPlugin, 'textRules'>> & {
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
  /** This process's leases (queue/process-owner.ts): the scheduler runs while it leads `scheduler`. */
  leader: Pick<ProcessOwner, 'lead' | 'claimLeads'>;
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

/** The queue over real agents and the real media policy (shared by `relay` and `chat`). */
export function createQueue(
  ctx: Context,
  store: Pick<Store, 'queue' | 'interactions' | 'channelState'>,
  channels: ChannelMap,
  extra: Pick<QueueOptions, 'hold' | 'textRules' | 'owner'> & {
    tools?: ToolHost;
    control?: MethodRegistry;
  } = {},
): Queue {
  const { config, paths, env, log } = ctx;
  const { tools, control, ...rest } = extra;
  // Lazy: no process (and no watchdog) starts until a warm agent takes its first turn.
  const warm = startWarmPool(
    config.agents.warm,
    log.child({ sub: 'warm' }),
    undefined,
    warmMemory(store.channelState(WARM_STATE.channel)),
  );
  // `agentwire agent warm-reset` while this relay runs: the pool forgets, not only the store.
  control?.register(WARM_RESET_METHOD, async (params) => {
    const kind = (params as { kind?: unknown } | undefined)?.kind;
    if (kind !== undefined && typeof kind !== 'string') throw new MethodError('kind must be a string');
    return { reset: await warm.warmReset(kind) };
  });
  const progress = outboxProgress({
    store: store.queue,
    editInterval: (channel) => {
      const c = channelCapabilities(channel);
      return c.edit ? c.editIntervalMs : undefined;
    },
    now: Date.now,
  });
  const queue = new Queue({
    store: store.queue,
    channels,
    resolve: agentResolver(config, paths, env, log.child({ sub: 'agent' }), warm),
    warm,
    mediaPolicy: mediaPolicy(config, paths.stagedMedia, confinedRoots(config, paths)),
    config,
    route: routeResolver(config),
    roles: roleResolver(config, channels),
    log: log.child({ sub: 'queue' }),
    defaultCwd: paths.workspace,
    textRules: (channel) => channelPlugin(channel)?.textRules(config),
    // Each run's status message, through the outbox, where the section asks and the channel edits.
    progress: { port: progress, settings: (channel) => progressSettings(config, channel) },
    ...(tools?.grantor && { tools: tools.grantor }),
    // A process that runs nothing (`hold`) asks nothing either.
    ...(!rest.hold && {
      interactions: {
        store: store.interactions,
        approvers: config.permissions.approvers,
        approvalTimeoutMs: config.permissions.timeoutMinutes * 60_000,
        settleMs: config.permissions.settleSeconds * 1000,
        owner: ownerOf(config, channels),
        owners: config.access.owners,
      },
    }),
    ...rest,
  });
  progress.bind({
    kick: (chat) => queue.deliverer.kick(chat),
    settled: (id, ms) => queue.deliverer.settled(id, ms),
  });
  tools?.bindDelivery((chat) => queue.deliverer.kick(chat));
  const interactions = queue.interactions;
  if (interactions) tools?.bindAsk((q, timeoutMs) => interactions.ask(q, timeoutMs));
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
 * `textRules` are the channels' splitter rules (default: the registry's plug-ins), the same the
 * queue cuts replies by, so send_message's text is cut exactly like a reply.
 */
export function createTools(
  ctx: Context,
  store: Pick<Store, 'queue' | 'tasks'> & Partial<Pick<Store, 'events'>>,
  channels: ChannelMap,
  socket: string,
  entry = agentwireEntry(),
  textRules: (channel: ChannelName) => ChunkRules | undefined = (channel) =>
    channelPlugin(channel)?.textRules(ctx.config),
  owner?: ProcessOwner,
): ToolHost {
  const { config, paths, log } = ctx;
  if (config.tools.enabled && !entry)
    log.warn('agentwire is not built (no cli/bin.js next to this file): runs get no tools');
  return createToolHost({
    enabled: config.tools.enabled,
    limits: config.tools,
    targets: config.targets,
    // A tool's send is a write of its run: fenced by the chat's lease when processes share the store.
    store: owner ? { queue: fencedReplies(store.queue, owner), tasks: store.tasks } : store,
    mediaPolicy: mediaPolicy(config, paths.stagedMedia, confinedRoots(config, paths)),
    textRules: (channel) => channelRules(channels.get(channel)?.textLimit, textRules(channel)),
    socket,
    // A sandboxed run's tools answer on a socket of its own that takes only its token.
    runSockets: {
      dir: join(dirname(socket), 'tool-sockets'),
      open: (path, methods) => {
        const registry = new MethodRegistry();
        registerToolsMethod(registry, methods);
        return openRunSocket(path, registry, log.child({ sub: 'tools' }));
      },
    },
    // The helper is a Node program started once per agent process: it gets the compile cache too
    // (codex starts its MCP servers with a short list of variables, not the agent's environment).
    ...(entry && { entry: { ...entry, env: compileCacheEnv(compileCacheDir(paths.home), ctx.env) } }),
    timeZone: () => Intl.DateTimeFormat().resolvedOptions().timeZone,
    ...(hasUserTools(config.tools) && {
      user: createUserTools({
        servers: config.tools.servers,
        scripts: config.tools.scripts,
        from: ctx.env,
        log: log.child({ sub: 'user-tools' }),
      }),
    }),
    // A request to another agent is an event addressed to a chat, stored and run by src/events/.
    ...(store.events && {
      agents: {
        list: config.agents.list,
        maxHops: config.tools.maxAgentHops,
        events: store.events,
        resolveChat: chatResolver(config.targets, (c) => channels.has(c)),
      },
    }),
  });
}

const hasUserTools = (t: Config['tools']): boolean =>
  Object.keys(t.servers).length + Object.keys(t.scripts).length > 0;

/**
 * `tools.call` and `tools.list` on a control registry: a ToolError is the agent's to read, anything
 * else is logged.
 */
export function registerToolsMethod(control: MethodRegistry, tools: ToolMethods): void {
  const told = (err: unknown) => {
    throw err instanceof ToolError ? new MethodError(err.message) : err;
  };
  control.register(TOOLS_METHOD, (params) => tools.call(params).catch(told));
  control.register(TOOLS_LIST_METHOD, (params) => tools.list(params).catch(told));
}

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
  const store = await openStore(storeConfigFor(ctx.paths));
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
    const services = opts.services ?? SERVICE_FACTORIES;
    const store = await openStore(storeConfigFor(paths));
    cleanup.push(() => store.close());
    // `agentwire chat` may run beside the relay on this state folder: chats are run under leases.
    const owner = await startOwner(ctx, store, 'relay');
    cleanup.push(() => owner.stop());
    const deps: RelayDeps = { config, paths, log, store, env: ctx.env };
    const channels = new Map<ChannelName, Channel>();
    for (const f of enabled) {
      const state = store.channelState(f.name);
      channels.set(f.name, await f.create({ ...deps, log: log.child({ sub: f.name }), state }));
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
    );
    const control = new MethodRegistry();
    const queue = createQueue(ctx, store, channels, { textRules, tools, owner, control });
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
    let stopping: Promise<void> | undefined;
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
          for (const ch of channels.values())
            await ch.stop().catch((err) => log.error({ err }, 'channel stop failed'));
          await owner.stop();
          await store.close();
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
export function stopOnSignals(
  relay: RunningRelay,
  graceMs: number,
  log: Logger,
  /** Signals that came while the relay was starting: handled now, in order. */
  early: readonly NodeJS.Signals[] = [],
): Promise<void> {
  return new Promise<void>((resolve) => {
    let signals = 0;
    const onSignal = (signal: NodeJS.Signals) => {
      signals++;
      log.info({ signal }, signals === 1 ? 'shutting down' : 'second signal: stopping now');
      if (signals === 1) void relay.stop(graceMs).then(resolve);
      else for (const [chat] of relay.queue.runSlots.runs()) relay.queue.runSlots.abort(chat, 'shutdown');
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    for (const signal of early) onSignal(signal);
  });
}

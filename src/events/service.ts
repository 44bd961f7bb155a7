// Events from outside as a relay service (src/relay.ts SERVICE_FACTORIES): the events folder, the
// hooks on the web console's HTTP server, and the control socket's `trigger`, all storing into one
// table that one runner drains through the queue (docs/events.md).
import { mkdirSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { isAgentKind } from '../agents/registry.js';
import type { Paths } from '../config/paths.js';
import type { Config } from '../config/schema.js';
import type { HookConfig } from '../config/schema-events.js';
import type { ChannelName, ChatKey, SystemRunner } from '../core/types.js';
import { systemClock } from '../heartbeat/clock.js';
import { type Logger, registerCredential } from '../log.js';
import type { ProcessOwner } from '../queue/process-owner.js';
import type { EventStore } from '../store/events.js';
import { REJECTED, SETTLE_MS, scanFolder } from './folder.js';
import { createHookHandler } from './hooks.js';
import { chatResolver } from './resolve.js';
import { EventRunner } from './runner.js';
import { TRIGGER_METHOD, triggerMethod } from './trigger.js';
import { type FolderWatch, watchFolder } from './watch.js';

export const HOOKS_PREFIX = '/hooks/';

export type RouteHandler = (req: IncomingMessage, res: ServerResponse, rest: string) => void;

/** What the relay hands the service (structurally its ServiceDeps). */
export interface EventsServiceDeps {
  config: Config;
  paths: Paths;
  log: Logger;
  runner: SystemRunner;
  store: { events: EventStore };
  channels: ReadonlyMap<ChannelName, unknown>;
  control: { register(name: string, handler: (params: unknown) => Promise<unknown>): void };
  http: { add(prefix: string, handler: RouteHandler): void };
  /** send_to_agent stores its requests as events: the runner is told at once. */
  onEventsStored?: (listener: () => void) => void;
  /**
   * The processes sharing the store (queue/process-owner.ts). Each stores events, one runs them: the
   * holder of the `events` lead, told of events stored elsewhere by `events_stored`. Without it
   * (a store of this process alone) the runner runs from the start.
   */
  leader?: Pick<ProcessOwner, 'lead' | 'claimLeads' | 'tell' | 'on'>;
}

/** The leader lease under which one process of a store runs its events. */
export const EVENTS_LEAD = 'events';

export const eventsDir = (paths: Pick<Paths, 'home'>): string => join(paths.home, 'events');

export const eventsService = {
  name: 'events',
  create(deps: EventsServiceDeps): { start(): Promise<void>; stop(): Promise<void> } {
    const { config, log } = deps;
    const store = deps.store.events;
    const resolve = chatResolver(config.targets, (c) => deps.channels.has(c));
    const runner = new EventRunner({
      store,
      runner: deps.runner,
      clock: systemClock,
      log,
      ...(config.heartbeat.activeHours && { activeHours: config.heartbeat.activeHours }),
    });
    const { leader } = deps;
    // Heard here at once (own notices are dispatched in process) and by the others on their next
    // round; the runner's minute-long sleep is the fallback for a notice lost on the way.
    const stored = leader ? () => leader.tell('events_stored', '') : () => runner.kick();
    leader?.on('events_stored', () => runner.kick());
    deps.onEventsStored?.(stored);
    const hooks: Record<string, HookConfig & { resolved: ChatKey }> = {};
    for (const [name, hook] of Object.entries(config.hooks)) {
      registerCredential(hook.secret);
      const chat = resolve(hook.chat);
      if (!chat.ok) {
        log.error({ hook: name }, `hooks: hook "${name}" is off: chat: ${chat.error}`);
        continue;
      }
      hooks[name] = { ...hook, resolved: chat.chat };
    }
    if (Object.keys(hooks).length > 0 && !config.console.enabled)
      log.warn('hooks: console.enabled is false, so nothing serves POST /hooks/<name>');
    const handler = createHookHandler({ hooks, store, now: Date.now, log, stored });
    deps.http.add(HOOKS_PREFIX, (req, res, rest) => handler(req, res, decodeURIComponentSafe(rest)));
    deps.control.register(
      TRIGGER_METHOD,
      triggerMethod({ store, resolve, knownAgent: isAgentKind, now: Date.now, stored }),
    );
    const dir = eventsDir(deps.paths);
    let watcher: FolderWatch | undefined;
    return {
      async start() {
        if (leader) {
          leader.lead(EVENTS_LEAD, { gained: () => runner.start(), lost: () => runner.stop() });
          await leader.claimLeads();
        } else runner.start();
        if (!config.events.enabled) return;
        mkdirSync(join(dir, REJECTED), { recursive: true, mode: 0o700 });
        watcher = watchFolder(
          dir,
          async () => {
            const r = await scanFolder({
              dir,
              maxFileBytes: config.events.maxFileBytes,
              store,
              resolve,
              knownAgent: isAgentKind,
              now: Date.now,
              log,
            });
            if (r.stored + r.duplicate + r.rejected > 0) log.info(r, 'events: folder read');
            if (r.stored > 0) stored();
            // A file that may still be written is looked at again once it has settled.
            if (r.waiting > 0) setTimeout(() => watcher?.poke(), SETTLE_MS).unref();
          },
          config.events.rescanSeconds * 1000,
          log,
        );
      },
      async stop() {
        watcher?.close();
        await watcher?.idle();
        runner.stop();
      },
    };
  },
};

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

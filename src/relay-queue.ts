import { join } from 'node:path';
import { folderPlaces } from './agents/session-places.js';
// The queue as the relay and `agentwire chat` build it: real agents (cold and warm), the real media
// policy, routes and roles from the config, live progress through the outbox, questions and
// approvals unless the process runs nothing.
import { channelCapabilities, channelPlugin } from './channels/registry.js';
import type { Context } from './cli/context.js';
import { progressSettings } from './config/schema-progress.js';
import { MethodError, type MethodRegistry } from './control/methods.js';
import { startWarmPool } from './drivers/warm.js';
import { WARM_RESET_METHOD, WARM_STATE, warmMemory } from './drivers/warm-memory.js';
import { confinedRoots, roleResolver, routeResolver } from './queue/access.js';
import { agentResolver, mediaPolicy } from './queue/adapters.js';
import { ownerOf } from './queue/owner.js';
import type { ChannelMap } from './queue/ports.js';
import { outboxProgress } from './queue/progress-outbox.js';
import { Queue, type QueueOptions } from './queue/queue.js';
import type { Launcher } from './runner/launcher/client.js';
import type { Store } from './store/open.js';
import type { ToolHost } from './tools/host.js';

/** The queue over real agents and the real media policy (shared by `relay` and `chat`). */
export function createQueue(
  ctx: Context,
  store: Pick<Store, 'queue' | 'interactions' | 'channelState'>,
  channels: ChannelMap,
  extra: Pick<QueueOptions, 'hold' | 'textRules' | 'owner' | 'sendLead'> & {
    tools?: ToolHost;
    control?: MethodRegistry;
    /** Cold runs and custom commands' scripts start from it (`agents.launcher`), not from here. */
    launcher?: Launcher;
  } = {},
): Queue {
  const { config, paths, env, log } = ctx;
  const { tools, control, launcher, ...rest } = extra;
  const run = launcher ? { launcher } : {};
  // Lazy: no process (and no watchdog) starts until a warm agent takes its first turn.
  const warm = startWarmPool(
    config.agents.warm,
    log.child({ sub: 'warm' }),
    undefined,
    warmMemory(store.channelState(WARM_STATE.channel)),
    run,
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
    canDelete: (channel) => channelCapabilities(channel).delete,
    now: Date.now,
  });
  const queue = new Queue({
    store: store.queue,
    channels,
    resolve: agentResolver(config, paths, env, log.child({ sub: 'agent' }), warm, run),
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
    ...(launcher && { launcher }),
    // On a shared database a chat may move to another machine, whose disk lacks its session.
    ...(config.store.engine === 'postgres' &&
      !config.store.sharedAgentState && { places: folderPlaces(join(paths.agentState, 'sessions-here')) }),
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

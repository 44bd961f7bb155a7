// The queue's shared parts, built from its options: the run context every run is handed
// (execute.ts), what chat commands need (chat-command.ts) and what one chat's run needs (run.ts).
// One place, so they never disagree on the store, the clock or the agents.
import type { AgentKind } from '../agents/types.js';
import type { ChannelName, ChatKey, OutboundItem } from '../core/types.js';
import { parseChatKey } from '../core/types.js';
import type { CommandDeps } from './chat-command.js';
import { chatTextRules } from './chat-text.js';
import type { RunContext } from './execute.js';
import type { Interactions } from './interactions.js';
import type { Clock } from './ports.js';
import type { QueueOptions } from './queue-types.js';
import type { RunSlots } from './run-slots.js';
import type { RunDeps } from './run-types.js';

export function runContext(
  opts: QueueOptions,
  runSlots: RunSlots,
  now: Clock,
  interactions: Interactions | undefined,
): RunContext {
  return {
    store: opts.store,
    resolve: opts.resolve,
    defaultAgent: opts.config.agent.kind as AgentKind,
    scope: opts.config.sessions.scope,
    idleMinutes: opts.config.sessions.idleMinutes,
    runSlots,
    now,
    log: opts.log,
    ...(opts.tools && { tools: opts.tools }),
    ...(interactions && { interactions }),
    ...(opts.route && { route: opts.route }),
    ...(opts.roles && { roles: opts.roles }),
    ...(opts.owner && { owner: opts.owner }),
    ...(opts.places && { places: opts.places }),
  };
}

export function commandDeps(
  opts: QueueOptions,
  context: RunContext,
  textItems: (chat: ChatKey, text: string) => OutboundItem[],
): CommandDeps {
  return {
    context,
    store: opts.store,
    runSlots: context.runSlots,
    resolve: opts.resolve,
    config: opts.config,
    log: opts.log,
    textItems,
    ...(opts.warm && { warm: opts.warm }),
    ...(context.interactions && { interactions: context.interactions }),
  };
}

/** What one run of `chat` is handed: the shared context and the chat's channel's settings. */
export function runDeps(
  opts: QueueOptions,
  context: RunContext,
  deliverer: RunDeps['deliverer'],
  chat: ChatKey,
): RunDeps {
  const cfg = opts.config.queue;
  const channel = (parseChatKey(chat) as { channel: ChannelName }).channel;
  const progress = opts.progress;
  const settings = progress?.settings(channel);
  return {
    ...(progress && settings && { progress: { port: progress.port, settings } }),
    context,
    mediaPolicy: opts.mediaPolicy,
    deliverer,
    channel: opts.channels.get(channel),
    limit: chatTextRules(opts, channel),
    whileBusy: cfg.whileBusy,
    maxPendingPerChat: cfg.maxPendingPerChat,
    maxPromptChars: cfg.maxPromptChars,
    timeZone: opts.timeZone,
    storeRetryMs: opts.storeRetryMs ?? 1000,
  };
}

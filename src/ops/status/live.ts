// The relay's side of `status`: the live pieces (channel states, the queue, the scheduler when one
// is at hand) joined with the store's history into one snapshot. The web console calls it in
// process; `agentwire status` builds the same from the control socket's `status` answer.
import type { ChannelPlugin } from '../../channels/plugin.js';
import { CHANNELS, CONSOLE } from '../../channels/registry.js';
import type { ChannelState } from '../../channels/types.js';
import type { Config } from '../../config/schema.js';
import type { RelayStatus } from '../../control/methods.js';
import type { ChannelName } from '../../core/types.js';
import type { SchedulerStatus } from '../../heartbeat/scheduler.js';
import type { QueueStatus } from '../../queue/queue.js';
import type { StatusFacts, StatusReader } from '../../store/status-read.js';
import { gather } from './gather.js';
import { buildSnapshot, type StatusSnapshot, type StatusSources } from './snapshot.js';
import { warmView } from './warm-view.js';

export const STATUS_METHOD = 'status';

export interface LiveStatusDeps {
  /** What the store holds (the relay's open store). */
  store: StatusReader;
  config: Config;
  /** The channels running in this relay; enabled-but-absent and disabled ones are filled in. */
  channels: () => readonly { name: ChannelName; state: ChannelState }[];
  queue: () => Promise<QueueStatus>;
  /** The live scheduler; without it next runs come from the stored job state (the same rules). */
  scheduler?: () => SchedulerStatus;
  startedAt: number;
  version?: string;
  pid?: number;
  now?: () => number;
}

export function liveStatus(deps: LiveStatusDeps): () => Promise<StatusSnapshot> {
  return async () => {
    const q = await deps.queue();
    const now = (deps.now ?? Date.now)();
    const shared = gather(await deps.store.read(), deps.config, now);
    const sched = deps.scheduler?.();
    return buildSnapshot({
      ...shared,
      now,
      source: 'relay',
      relay: {
        running: true,
        pid: deps.pid ?? process.pid,
        startedAt: deps.startedAt,
        version: deps.version,
      },
      channels: withAllChannels(deps.channels(), deps.config),
      lanes: mergeLanes(q),
      maxConcurrentRuns: q.maxConcurrentRuns,
      ...(q.warm && { warm: warmView(q.warm, now) }),
      ...(sched && {
        heartbeat: sched.heartbeat.enabled
          ? {
              target: sched.heartbeat.target,
              nextAt: sched.heartbeat.nextAt,
              ...(sched.heartbeat.waitingFor && { waitingFor: sched.heartbeat.waitingFor }),
            }
          : undefined,
        heartbeatOff: sched.heartbeat.enabled ? undefined : sched.heartbeat.reason,
        schedules: sched.schedules.map((s) => ({ id: s.id, target: s.target, nextAt: s.nextAt })),
      }),
    });
  };
}

/** `agentwire status` against a relay whose `status` method answers the core's RelayStatus. */
export function snapshotFromRelayStatus(
  rs: RelayStatus,
  facts: StatusFacts | undefined,
  config: LiveStatusDeps['config'],
  now: number,
): StatusSnapshot {
  const running = Object.entries(rs.channels).map(([name, state]) => ({
    name: name as ChannelName,
    state: state as ChannelState,
  }));
  return buildSnapshot({
    ...gather(facts, config, now),
    now,
    source: 'relay',
    relay: {
      running: true,
      pid: rs.pid,
      startedAt: rs.startedAt,
      ...(rs.version !== undefined && { version: rs.version }),
    },
    channels: withAllChannels(running, config),
    lanes: mergeLanes(rs.queue),
    maxConcurrentRuns: rs.queue.maxConcurrentRuns,
    ...(rs.queue.warm && { warm: warmView(rs.queue.warm, now) }),
  });
}

/**
 * Every registered channel appears, in the registry's order: running ones as they are, the rest
 * disabled or stopped. The console is not a channel a person watches here.
 */
export function withAllChannels(
  running: readonly { name: ChannelName; state: ChannelState }[],
  config: Config,
  plugins: readonly ChannelPlugin[] = CHANNELS,
): { name: ChannelName; state: ChannelState }[] {
  const out = running.filter((c) => c.name !== CONSOLE);
  for (const p of plugins) {
    if (out.some((c) => c.name === p.name)) continue;
    out.push({ name: p.name, state: p.enabled(config) ? { type: 'stopped' } : { type: 'disabled' } });
  }
  const order = (name: string) => {
    const i = plugins.findIndex((p) => p.name === name);
    return i < 0 ? plugins.length : i;
  };
  return out.sort((a, b) => order(a.name) - order(b.name));
}

/** Waiting counts per chat (from the inbox) joined with the runs in progress (from the lanes). */
export function mergeLanes(q: Pick<QueueStatus, 'waiting' | 'active'>): NonNullable<StatusSources['lanes']> {
  const byChat = new Map<string, NonNullable<StatusSources['lanes']>[number]>();
  for (const [chat, pending] of Object.entries(q.waiting)) byChat.set(chat, { chat, pending });
  for (const a of q.active) {
    const lane = byChat.get(a.chat) ?? { chat: a.chat, pending: 0 };
    lane.active = {
      startedAt: a.startedAt,
      label: a.kind === 'user' ? 'user' : a.label,
      messages: a.messages,
    };
    byChat.set(a.chat, lane);
  }
  return [...byChat.values()];
}

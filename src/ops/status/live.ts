// The relay's side of `status`: gathers the live pieces (channel states, the queue, the scheduler)
// and the store's history into one snapshot. The relay registers `liveStatus(deps)` as the control
// socket's `status` method and hands the same function to the web console.
import type { ChannelState } from '../../channels/types.js';
import type { ChannelName } from '../../core/types.js';
import type { SchedulerStatus } from '../../heartbeat/scheduler.js';
import type { QueueStatus } from '../../queue/queue.js';
import type { Db } from '../../store/db.js';
import { buildSnapshot, type StatusSnapshot, type StatusSources } from './snapshot.js';
import { readStore } from './store-reader.js';

export const STATUS_METHOD = 'status';

export interface LiveStatusDeps {
  db: Db;
  /** Every channel the relay knows, enabled or not. */
  channels: () => readonly { name: ChannelName; state: ChannelState }[];
  queue: () => QueueStatus;
  scheduler?: () => SchedulerStatus;
  startedAt: number;
  version?: string;
  pid?: number;
  now?: () => number;
}

export function liveStatus(deps: LiveStatusDeps): () => StatusSnapshot {
  return () => {
    const now = (deps.now ?? Date.now)();
    const stored = readStore(deps.db);
    const q = deps.queue();
    const sched = deps.scheduler?.();
    const sources: StatusSources = {
      now,
      source: 'relay',
      relay: {
        running: true,
        pid: deps.pid ?? process.pid,
        startedAt: deps.startedAt,
        version: deps.version,
      },
      channels: [...deps.channels()],
      lanes: mergeLanes(q),
      maxConcurrentRuns: q.maxConcurrentRuns,
      sessions: stored.sessions,
      ...(sched?.heartbeat.enabled && {
        heartbeat: { target: sched.heartbeat.target, nextAt: sched.heartbeat.nextAt },
      }),
      schedules: (sched?.schedules ?? []).map((s) => ({ id: s.id, target: s.target, nextAt: s.nextAt })),
      runs: stored.runs,
      failures: stored.failures,
    };
    return buildSnapshot(sources);
  };
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

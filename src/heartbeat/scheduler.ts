// The scheduler: one timer for all jobs (the heartbeat and each schedule). It sleeps until the
// earliest job is due but never longer than MAX_SLEEP_MS, and on waking compares the wall clock
// itself; so a suspended laptop, a changed system clock, or a one-shot months away (setTimeout
// cannot wait past 24.8 days) all come out right. Each job fires at most once at a time.

import { type ActiveHours, firstActiveTick } from '../core/hours.js';
import { describeTiming } from '../core/timing.js';
import type { ChatKey } from '../core/types.js';
import type { Timer } from './clock.js';
import { type FireOptions, HeartbeatJob, type HeartbeatOutcome } from './heartbeat-job.js';
import type { Job, JobDeps } from './jobs.js';
import type { HeartbeatWait } from './listing.js';
import { ScheduleJob } from './schedule-job.js';
import {
  DEFAULT_HEARTBEAT_MINUTES,
  type HeartbeatConfig,
  resolveHeartbeat,
  resolveSchedule,
  type ScheduleConfig,
} from './settings.js';
import { hasDefaultTarget } from './target.js';
import { TaskJobs, type TaskSource } from './tasks.js';

export const MAX_SLEEP_MS = 60_000;

export interface SchedulerDeps extends JobDeps {
  /** `whatsapp.enabled` says whether the self-chat default target can exist (assumed when absent). */
  config: {
    heartbeat: HeartbeatConfig;
    schedules: readonly ScheduleConfig[];
    /** The channels' sections (a listing built from a few sections assumes the rest). */
    readonly [section: string]: unknown;
  };
  /** The linked WhatsApp self-chat once the channel knows it; used when heartbeat.target is unset. */
  defaultTarget: () => ChatKey | undefined;
  /** Tasks agents scheduled (docs/tools.md): fired like schedules, re-read from the store on each wake. */
  tasks?: TaskSource;
}

export interface JobStatus {
  nextAt?: number;
  lastAt?: number;
  lastOutcome?: string;
  lastDetail?: string;
}

export interface SchedulerStatus {
  heartbeat:
    | { enabled: false; reason?: 'no_target' }
    | ({
        enabled: true;
        everyMinutes: number;
        target?: string;
        activeHours?: ActiveHours;
        /** No target yet: WhatsApp, whose self-chat is the default, is not linked; ticks are skipped. */
        waitingFor?: HeartbeatWait;
      } & JobStatus);
  schedules: ({ id: string; timing: string; target: string } & JobStatus)[];
}

export interface Scheduler {
  /** Plans from the stored state and arms the timer. */
  start(): void;
  /** Fires nothing more; runs under way finish (the queue's shutdown decides how long they get). */
  stop(): void;
  /** Resolves when no job is running (await after the queue stopped, before closing the store). */
  whenIdle(): Promise<void>;
  /** One heartbeat now (`agentwire heartbeat`), outside active hours too. */
  fireHeartbeat(o: FireOptions): Promise<HeartbeatOutcome>;
  status(): SchedulerStatus;
  /** Re-reads the stored tasks now (one was added or cancelled) and re-arms the timer. */
  syncTasks(): Promise<void>;
}

export function createScheduler(input: SchedulerDeps): Scheduler {
  let stopped = true;
  let started = false;
  const deps: SchedulerDeps = { ...input, stopping: () => started && stopped };
  const { log, clock } = deps;
  const hb = resolveHeartbeat(deps.config.heartbeat, hasDefaultTarget(deps.config));
  if (hb.type === 'invalid') log.error(hb.error);
  if (hb.type === 'off' && hb.reason === 'no_target')
    log.info('heartbeat off: no heartbeat.target, and WhatsApp (whose self-chat is the default) is disabled');
  const heartbeat = hb.type === 'on' ? new HeartbeatJob(deps, hb, deps.defaultTarget) : undefined;
  const schedules: ScheduleJob[] = [];
  for (const c of deps.config.schedules) {
    const r = resolveSchedule(c);
    if (r.ok) schedules.push(new ScheduleJob(deps, r.spec));
    else log.error(r.error);
  }
  const fixed: Job[] = [...(heartbeat ? [heartbeat] : []), ...schedules];
  const taskJobs = deps.tasks ? new TaskJobs(deps, deps.tasks) : undefined;
  const jobs = (): Job[] => (taskJobs ? [...fixed, ...taskJobs.list()] : fixed);
  // Syncs run one at a time: a wake and a tool's change may ask at once.
  let syncing: Promise<void> = Promise.resolve();
  const refresh = (): Promise<void> => {
    if (!taskJobs) return syncing;
    syncing = syncing.then(() => taskJobs.sync((j) => firing.has(j)));
    return syncing;
  };

  let timer: Timer | undefined;
  const firing = new Set<Job>();
  const tasks = new Set<Promise<void>>();

  const arm = (): void => {
    timer?.cancel();
    timer = undefined;
    if (stopped) return;
    let earliest: number | undefined;
    for (const j of jobs()) {
      const w = firing.has(j) ? undefined : j.wakeAt();
      if (w !== undefined && (earliest === undefined || w < earliest)) earliest = w;
    }
    if (earliest === undefined) return;
    const delay = Math.min(Math.max(0, earliest - clock.now()), MAX_SLEEP_MS);
    timer = clock.setTimer(wake, delay);
  };

  const wake = (): void => {
    timer = undefined;
    if (stopped) return;
    const fireDue = (): void => {
      if (stopped) return;
      const now = clock.now();
      for (const j of jobs()) {
        const w = firing.has(j) ? undefined : j.wakeAt();
        if (w !== undefined && w <= now) launch(j, now);
      }
      arm();
    };
    // The stored tasks first, so a task cancelled a moment ago never fires.
    if (taskJobs) void refresh().then(fireDue);
    else fireDue();
  };

  const launch = (j: Job, now: number): void => {
    firing.add(j);
    const task: Promise<void> = j
      .fire(now)
      .catch((err: unknown) => log.error({ job: j.name, err }, 'scheduled job threw'))
      .finally(() => {
        firing.delete(j);
        tasks.delete(task);
        arm();
        // A one-shot task that has run leaves the store (and /tasks) now, not at the next wake.
        if (taskJobs?.list().includes(j as never)) void refresh().then(arm);
      });
    tasks.add(task);
  };

  // For `fireHeartbeat` when heartbeat.everyMinutes is 0: the same job, never ticking.
  let manual: HeartbeatJob | undefined;
  const manualJob = (): HeartbeatJob => {
    if (heartbeat) return heartbeat;
    const settings = resolveHeartbeat({ ...deps.config.heartbeat, everyMinutes: DEFAULT_HEARTBEAT_MINUTES });
    if (settings.type !== 'on') throw new Error('heartbeat settings are invalid');
    manual ??= new HeartbeatJob(deps, settings, deps.defaultTarget, true);
    return manual;
  };

  return {
    start() {
      stopped = false;
      started = true;
      log.info({ heartbeat: Boolean(heartbeat), schedules: schedules.length }, 'scheduler started');
      arm();
      if (taskJobs) void refresh().then(arm);
    },
    stop() {
      stopped = true;
      timer?.cancel();
      timer = undefined;
    },
    async syncTasks() {
      await refresh();
      arm();
    },
    async whenIdle() {
      while (tasks.size > 0) await Promise.all([...tasks]);
    },
    async fireHeartbeat(o) {
      let job: HeartbeatJob;
      try {
        job = manualJob();
      } catch (err) {
        return { type: 'refused', reason: 'invalid', message: (err as Error).message };
      }
      return job.fireNow(o);
    },
    status() {
      const h = heartbeat?.snapshot;
      const target = h ? (h.settings.target ?? deps.defaultTarget()) : undefined;
      return {
        heartbeat: h
          ? {
              enabled: true,
              everyMinutes: h.settings.everyMs / 60_000,
              target,
              ...(target === undefined && { waitingFor: 'whatsapp_link' as const }),
              activeHours: h.settings.activeHours,
              nextAt:
                h.settings.activeHours && h.state.nextRunAt !== undefined
                  ? firstActiveTick(h.state.nextRunAt, h.settings.everyMs, h.settings.activeHours)
                  : h.state.nextRunAt,
              lastAt: h.state.lastRunAt,
              lastOutcome: h.state.lastOutcome,
              lastDetail: h.state.lastDetail,
            }
          : { enabled: false, ...(hb.type === 'off' && hb.reason && { reason: hb.reason }) },
        schedules: [...schedules, ...(taskJobs?.list() ?? [])].map((s) => {
          const snap = s.snapshot;
          return {
            id: s.spec.id,
            timing: describeTiming(s.spec.timing),
            target: s.spec.target,
            nextAt: snap.retryAt ?? snap.occurrence,
            lastAt: snap.state.lastRunAt,
            lastOutcome: snap.state.lastOutcome,
            lastDetail: snap.state.lastDetail,
          };
        }),
      };
    },
  };
}

// Tasks agents scheduled (the `schedule_task` tool, src/store/tasks.ts) as schedules: each stored
// task becomes a ScheduleJob like a config schedule, with the id `task:<id>`, aimed at the chat that
// scheduled it. The set follows the store: a task added, cancelled (by the tool or `/tasks
// cancel`), paused, resumed or changed (pause_task, resume_task, update_task) is picked up at the
// next sync, and a one-shot that has run is removed from the store. A task keeps its id across its
// firings (its series id), so a change or a pause applies to every later firing.

import type { JobState } from '../core/job-state.js';
import type { ChatKey } from '../core/types.js';
import type { AgentTask } from '../store/tasks.js';
import type { JobDeps } from './jobs.js';
import { ScheduleJob } from './schedule-job.js';
import { DEFAULT_CHECK_TIMEOUT_SECONDS, resolveSchedule, type ScheduleConfig } from './settings.js';
import { scheduleJob } from './state.js';

export const TASK_PREFIX = 'task:';

/** A stored task as the schedule config it behaves like. */
export function taskSchedule(t: AgentTask): ScheduleConfig {
  return {
    id: `${TASK_PREFIX}${t.id}`,
    target: t.chat,
    prompt: t.prompt,
    ...(t.cron !== undefined && { cron: t.cron }),
    ...(t.every !== undefined && { every: t.every }),
    ...(t.at !== undefined && { at: t.at }),
    ...(t.timeZone !== undefined && { timeZone: t.timeZone }),
    checkTimeoutSeconds: DEFAULT_CHECK_TIMEOUT_SECONDS,
  };
}

export interface TaskSource {
  all(): Promise<AgentTask[]>;
  remove(id: string): Promise<void>;
  /** Whether this process fires the chat's tasks (the relay: its channels; `agentwire chat`: console). */
  serves(chat: ChatKey): boolean;
}

/** The task jobs of one scheduler, kept in step with the store by `sync`. */
/** What a task's job is built from: a change to any of it rebuilds the job. */
const shape = (t: AgentTask): string => JSON.stringify([t.prompt, t.cron, t.every, t.at, t.timeZone]);

export class TaskJobs {
  private readonly jobs = new Map<string, ScheduleJob>();
  private readonly shapes = new Map<string, string>();
  /**
   * The state of a job let go (paused, or changed): the job built again starts from it, not from
   * the states read at start, so a recurring task that already fired since does not fire twice.
   */
  private readonly kept = new Map<string, JobState>();

  constructor(
    private readonly d: JobDeps,
    private readonly source: TaskSource,
  ) {}

  list(): ScheduleJob[] {
    return [...this.jobs.values()];
  }

  /** `busy(job)`: a job firing now is left alone until it is done (removed at the next sync). */
  async sync(busy: (job: ScheduleJob) => boolean): Promise<void> {
    let stored: AgentTask[];
    try {
      stored = (await this.source.all()).filter((t) => this.source.serves(t.chat));
    } catch (err) {
      this.d.log.error({ err }, 'could not read the scheduled tasks');
      return;
    }
    // A paused task is as good as absent until it is resumed (its last state is kept meanwhile).
    const tasks = stored.filter((t) => t.pausedAt === undefined);
    const seen = new Set<string>();
    for (const t of tasks) {
      seen.add(t.id);
      const job = this.jobs.get(t.id);
      if (job) {
        if (busy(job)) continue;
        if (job.snapshot.state.done) {
          await this.finished(t.id);
          continue;
        }
        if (this.shapes.get(t.id) === shape(t)) continue;
        // Changed by update_task: rebuilt below (a new timing starts from a fresh state).
        this.letGo(t.id, job);
      }
      const r = resolveSchedule(taskSchedule(t));
      if (!r.ok) {
        // Checked when scheduled; a task that no longer parses (a zone renamed) is logged, kept.
        this.d.log.warn({ task: t.id, error: r.error }, 'a scheduled task cannot run');
        continue;
      }
      const kept = this.kept.get(t.id);
      const d = kept
        ? { ...this.d, stored: new Map([...this.d.stored, [scheduleJob(r.spec.id), kept]]) }
        : this.d;
      this.jobs.set(t.id, new ScheduleJob(d, r.spec));
      this.shapes.set(t.id, shape(t));
    }
    for (const [id, job] of this.jobs) if (!seen.has(id) && !busy(job)) this.letGo(id, job);
    const present = new Set(stored.map((t) => t.id));
    for (const id of this.kept.keys()) if (!present.has(id)) this.kept.delete(id);
  }

  private letGo(id: string, job: ScheduleJob): void {
    this.kept.set(id, job.snapshot.state);
    this.jobs.delete(id);
    this.shapes.delete(id);
  }

  private async finished(id: string): Promise<void> {
    this.jobs.delete(id);
    await this.source
      .remove(id)
      .catch((err) => this.d.log.error({ err }, 'could not remove a finished task'));
  }
}

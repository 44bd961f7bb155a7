// Tasks agents scheduled (the `schedule_task` tool, src/store/tasks.ts) as schedules: each stored
// task becomes a ScheduleJob like a config schedule, with the id `task:<id>`, aimed at the chat that
// scheduled it. The set follows the store: a task added or cancelled (by the tool or `/tasks
// cancel`) is picked up at the next sync, and a one-shot that has run is removed from the store.
import type { ChatKey } from '../core/types.js';
import type { AgentTask } from '../store/tasks.js';
import type { JobDeps } from './jobs.js';
import { ScheduleJob } from './schedule-job.js';
import { DEFAULT_CHECK_TIMEOUT_SECONDS, resolveSchedule, type ScheduleConfig } from './settings.js';

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
export class TaskJobs {
  private readonly jobs = new Map<string, ScheduleJob>();

  constructor(
    private readonly d: JobDeps,
    private readonly source: TaskSource,
  ) {}

  list(): ScheduleJob[] {
    return [...this.jobs.values()];
  }

  /** `busy(job)`: a job firing now is left alone until it is done (removed at the next sync). */
  async sync(busy: (job: ScheduleJob) => boolean): Promise<void> {
    let tasks: AgentTask[];
    try {
      tasks = (await this.source.all()).filter((t) => this.source.serves(t.chat));
    } catch (err) {
      this.d.log.error({ err }, 'could not read the scheduled tasks');
      return;
    }
    const seen = new Set<string>();
    for (const t of tasks) {
      seen.add(t.id);
      const job = this.jobs.get(t.id);
      if (job) {
        if (!busy(job) && job.snapshot.state.done) await this.finished(t.id);
        continue;
      }
      const r = resolveSchedule(taskSchedule(t));
      if (!r.ok) {
        // Checked when scheduled; a task that no longer parses (a zone renamed) is logged, kept.
        this.d.log.warn({ task: t.id, error: r.error }, 'a scheduled task cannot run');
        continue;
      }
      this.jobs.set(t.id, new ScheduleJob(this.d, r.spec));
    }
    for (const [id, job] of this.jobs) if (!seen.has(id) && !busy(job)) this.jobs.delete(id);
  }

  private async finished(id: string): Promise<void> {
    this.jobs.delete(id);
    await this.source
      .remove(id)
      .catch((err) => this.d.log.error({ err }, 'could not remove a finished task'));
  }
}

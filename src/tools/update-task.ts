// update_task, pure: what a change to a task becomes. The task keeps its id (the series id every
// task tool, `/tasks` and the scheduler match on). New timing passes the same checks as
// schedule_task (the shortest interval above all: an agent must not tighten its own schedule past
// the owner's limit); a refused change changes nothing.
import type { AgentTask, TaskChange } from '../store/tasks.js';
import { checkTask } from './task-policy.js';

export interface UpdateRequest {
  prompt?: string;
  cron?: string;
  every?: string;
  at?: string;
  timeZone?: string;
}

export type UpdatePlan = { ok: true; change: TaskChange; nextAt?: number } | { ok: false; error: string };

export function planUpdate(
  task: AgentTask,
  a: UpdateRequest,
  minIntervalMs: number,
  now: number,
): UpdatePlan {
  const newTiming = a.cron !== undefined || a.every !== undefined || a.at !== undefined;
  if (!newTiming && a.prompt === undefined && a.timeZone === undefined)
    return { ok: false, error: 'nothing to change: give a prompt, or cron, every or at' };
  const prompt = a.prompt ?? task.prompt;
  if (!prompt.trim()) return { ok: false, error: 'prompt is empty; the task is unchanged' };
  if (!newTiming && a.timeZone === undefined) return { ok: true, change: { prompt } };
  // A zone alone moves the task's own timing into that zone.
  const timing = newTiming
    ? { cron: a.cron, every: a.every, at: a.at, timeZone: a.timeZone ?? task.timeZone }
    : { cron: task.cron, every: task.every, at: task.at, timeZone: a.timeZone };
  const c = checkTask({ prompt, ...timing }, minIntervalMs, now);
  if (!c.ok) return { ok: false, error: `${c.error}; the task is unchanged` };
  return {
    ok: true,
    change: { ...(a.prompt !== undefined && { prompt }), timing: c.fields },
    nextAt: c.firstAt,
  };
}

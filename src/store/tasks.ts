// The tasks port's types, whatever the engine (the SQLite engine: store/sqlite/tasks.ts).
import type { ChatKey } from '../core/types.js';

export interface AgentTask {
  id: string;
  chat: ChatKey;
  prompt: string;
  cron?: string;
  every?: string;
  at?: string;
  timeZone?: string;
  createdAt: number;
  /** Set while the task is paused (pause_task); the scheduler does not fire it. */
  pausedAt?: number;
}

export type NewTask = Omit<AgentTask, 'id' | 'createdAt' | 'pausedAt'>;

/** What update_task changes: the prompt, and/or the whole timing (one of cron, every, at, and a zone). */
export interface TaskChange {
  prompt?: string;
  timing?: Pick<AgentTask, 'cron' | 'every' | 'at' | 'timeZone'>;
}

export type AddTaskResult =
  | { type: 'added'; task: AgentTask }
  /** The same call (same key) already made it: the stored task, unchanged. */
  | { type: 'existing'; task: AgentTask }
  /** The chat already has `max` tasks. */
  | { type: 'full'; count: number };

/** The task operations the tools and the scheduler use, each one transaction. */
export interface TaskStore {
  add(task: NewTask, callKey: string, max: number, now: number): Promise<AddTaskResult>;
  list(chat: ChatKey): Promise<AgentTask[]>;
  all(): Promise<AgentTask[]>;
  cancel(chat: ChatKey, id: string): Promise<boolean>;
  /** Removes a task whatever its chat (a finished one-shot). */
  remove(id: string): Promise<void>;
  /** Pauses (`at` a time) or resumes (`undefined`) a task of this chat; undefined when it has none. */
  setPaused(chat: ChatKey, id: string, at: number | undefined): Promise<AgentTask | undefined>;
  /** Changes a task of this chat in place (same id); undefined when it has none. */
  update(chat: ChatKey, id: string, change: TaskChange): Promise<AgentTask | undefined>;
}

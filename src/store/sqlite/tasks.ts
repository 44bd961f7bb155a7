// Tasks an agent scheduled for its own chat with the `schedule_task` tool: stored here, fired by the
// same scheduler as the config's schedules (src/heartbeat/). Each row keeps the timing exactly as the
// agent gave it; the scheduler parses it again at start, like a config schedule.
//
// A task is created once per call key (the run's key plus the call's place in the run), so a run
// that is redone after a crash and schedules the same thing again does not make a second task.
import { randomBytes } from 'node:crypto';
import type { ChatKey } from '../../core/types.js';
import type { AgentTask, TaskStore } from '../tasks.js';
import { type Db, type Migration, prepared, transaction } from './db.js';

export type { AddTaskResult, AgentTask, NewTask, TaskChange, TaskStore } from '../tasks.js';

export const tasksMigration: Migration = {
  module: 'agent_tasks',
  steps: [
    `CREATE TABLE agent_tasks (
      id TEXT PRIMARY KEY,
      chat TEXT NOT NULL,
      call_key TEXT NOT NULL UNIQUE,
      prompt TEXT NOT NULL,
      cron TEXT,
      every TEXT,
      at TEXT,
      time_zone TEXT,
      created_at INTEGER NOT NULL
    );
    CREATE INDEX agent_tasks_chat ON agent_tasks (chat);`,
    // A paused task keeps its id (the series id every task tool matches on) and its place; the
    // scheduler leaves it alone until it is resumed.
    'ALTER TABLE agent_tasks ADD COLUMN paused_at INTEGER',
  ],
};

interface Row {
  id: string;
  chat: string;
  prompt: string;
  cron: string | null;
  every: string | null;
  at: string | null;
  time_zone: string | null;
  created_at: number;
  // Absent from a file not yet migrated to the column (see allTasks).
  paused_at?: number | null;
}

const COLUMNS = 'id, chat, prompt, cron, every, at, time_zone, created_at, paused_at';

const toTask = (r: Row): AgentTask => ({
  id: r.id,
  chat: r.chat as ChatKey,
  prompt: r.prompt,
  ...(r.cron !== null && { cron: r.cron }),
  ...(r.every !== null && { every: r.every }),
  ...(r.at !== null && { at: r.at }),
  ...(r.time_zone !== null && { timeZone: r.time_zone }),
  createdAt: r.created_at,
  ...(r.paused_at !== null && r.paused_at !== undefined && { pausedAt: Number(r.paused_at) }),
});

/** Short, unguessable enough to type in `/tasks cancel <id>`, and never reused. */
const newId = (): string => `t${randomBytes(4).toString('hex')}`;

/** Sync, for callers already inside a transaction (the /tasks chat command). */
export function tasksForChat(db: Db, chat: ChatKey): AgentTask[] {
  const rows = prepared(db, `SELECT ${COLUMNS} FROM agent_tasks WHERE chat = ? ORDER BY created_at, id`).all(
    chat,
  ) as unknown as Row[];
  return rows.map(toTask);
}

/** Sync, for callers already inside a transaction. True when the chat had a task with this id. */
export function deleteTask(db: Db, chat: ChatKey, id: string): boolean {
  return Number(prepared(db, 'DELETE FROM agent_tasks WHERE chat = ? AND id = ?').run(chat, id).changes) > 0;
}

function taskOf(db: Db, chat: ChatKey, id: string): AgentTask | undefined {
  const r = prepared(db, `SELECT ${COLUMNS} FROM agent_tasks WHERE chat = ? AND id = ?`).get(chat, id) as
    | Row
    | undefined;
  return r && toTask(r);
}

/**
 * Every task. `*` rather than the column list: `status` and `schedules` read a store file read-only
 * and never migrate it, so a file a relay of the previous version wrote has no paused_at yet.
 */
export function allTasks(db: Db): AgentTask[] {
  const rows = prepared(db, 'SELECT * FROM agent_tasks ORDER BY created_at, id').all() as unknown as Row[];
  return rows.map(toTask);
}

export function taskStore(db: Db): TaskStore {
  return {
    add: async (task, callKey, max, now) =>
      transaction(db, () => {
        const same = prepared(db, `SELECT ${COLUMNS} FROM agent_tasks WHERE call_key = ?`).get(callKey) as
          | Row
          | undefined;
        if (same) return { type: 'existing', task: toTask(same) };
        const count = (
          prepared(db, 'SELECT COUNT(*) AS n FROM agent_tasks WHERE chat = ?').get(task.chat) as { n: number }
        ).n;
        if (count >= max) return { type: 'full', count };
        const stored: AgentTask = { ...task, id: newId(), createdAt: now };
        prepared(
          db,
          `INSERT INTO agent_tasks (id, chat, call_key, prompt, cron, every, at, time_zone, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        ).run(
          stored.id,
          stored.chat,
          callKey,
          stored.prompt,
          stored.cron ?? null,
          stored.every ?? null,
          stored.at ?? null,
          stored.timeZone ?? null,
          now,
        );
        return { type: 'added', task: stored };
      }),
    list: async (chat) => tasksForChat(db, chat),
    all: async () => allTasks(db),
    cancel: async (chat, id) => deleteTask(db, chat, id),
    remove: async (id) => {
      prepared(db, 'DELETE FROM agent_tasks WHERE id = ?').run(id);
    },
    setPaused: async (chat, id, at) =>
      transaction(db, () => {
        prepared(db, 'UPDATE agent_tasks SET paused_at = ? WHERE chat = ? AND id = ?').run(
          at ?? null,
          chat,
          id,
        );
        return taskOf(db, chat, id);
      }),
    update: async (chat, id, change) =>
      transaction(db, () => {
        if (change.prompt !== undefined)
          prepared(db, 'UPDATE agent_tasks SET prompt = ? WHERE chat = ? AND id = ?').run(
            change.prompt,
            chat,
            id,
          );
        const t = change.timing;
        if (t)
          prepared(
            db,
            'UPDATE agent_tasks SET cron = ?, every = ?, at = ?, time_zone = ? WHERE chat = ? AND id = ?',
          ).run(t.cron ?? null, t.every ?? null, t.at ?? null, t.timeZone ?? null, chat, id);
        return taskOf(db, chat, id);
      }),
  };
}

// Agents' scheduled tasks on PostgreSQL (the rules of store/tasks.ts): one task per call key, at most
// `max` per chat. `add` takes the chat's lock, so two calls racing in one chat cannot both pass the cap.
import { randomBytes } from 'node:crypto';
import type { ChatKey } from '../../core/types.js';
import type { AgentTask, TaskStore } from '../tasks.js';
import { escapeNul, unescapeNul } from './nul.js';
import { chatLock, inTx, type Pool, type Queryable } from './pool.js';

/** An agent_tasks row as read, with the columns of TASK_COLUMNS. */
export interface TaskRow {
  id: string;
  chat: string;
  prompt: string;
  cron: string | null;
  every: string | null;
  at: string | null;
  time_zone: string | null;
  created_at: number;
  paused_at: number | null;
}

export const TASK_COLUMNS = 'id, chat, prompt, cron, every, at, time_zone, created_at, paused_at';

export const toTask = (r: TaskRow): AgentTask => ({
  id: r.id,
  chat: r.chat as ChatKey,
  prompt: unescapeNul(r.prompt),
  ...(r.cron !== null && { cron: r.cron }),
  ...(r.every !== null && { every: r.every }),
  ...(r.at !== null && { at: r.at }),
  ...(r.time_zone !== null && { timeZone: r.time_zone }),
  createdAt: r.created_at,
  ...(r.paused_at !== null && { pausedAt: r.paused_at }),
});

/** Short, unguessable enough to type in `/tasks cancel <id>`, and never reused. */
const newId = (): string => `t${randomBytes(4).toString('hex')}`;

async function taskOf(q: Queryable, chat: string, id: string): Promise<AgentTask | undefined> {
  const r = await q.query<TaskRow>(`SELECT ${TASK_COLUMNS} FROM agent_tasks WHERE chat = $1 AND id = $2`, [
    chat,
    id,
  ]);
  return r.rows[0] && toTask(r.rows[0]);
}

export function pgTaskStore(pool: Pool): TaskStore {
  const list = async (sql: string, params: unknown[]) =>
    (await pool.query<TaskRow>(sql, params)).rows.map(toTask);
  return {
    add: (task, callKey, max, now) =>
      inTx(pool, [chatLock(task.chat)], async (c) => {
        const same = await c.query<TaskRow>(`SELECT ${TASK_COLUMNS} FROM agent_tasks WHERE call_key = $1`, [
          callKey,
        ]);
        if (same.rows[0]) return { type: 'existing' as const, task: toTask(same.rows[0]) };
        const n = await c.query<{ n: number }>('SELECT count(*) AS n FROM agent_tasks WHERE chat = $1', [
          task.chat,
        ]);
        const count = n.rows[0]?.n ?? 0;
        if (count >= max) return { type: 'full' as const, count };
        const stored: AgentTask = { ...task, id: newId(), createdAt: now };
        await c.query(
          `INSERT INTO agent_tasks (id, chat, call_key, prompt, cron, every, at, time_zone, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
          [
            stored.id,
            stored.chat,
            callKey,
            escapeNul(stored.prompt),
            stored.cron ?? null,
            stored.every ?? null,
            stored.at ?? null,
            stored.timeZone ?? null,
            now,
          ],
        );
        return { type: 'added' as const, task: stored };
      }),
    list: (chat) =>
      list(`SELECT ${TASK_COLUMNS} FROM agent_tasks WHERE chat = $1 ORDER BY created_at, id`, [chat]),
    all: () => list(`SELECT ${TASK_COLUMNS} FROM agent_tasks ORDER BY created_at, id`, []),
    cancel: async (chat, id) =>
      ((await pool.query('DELETE FROM agent_tasks WHERE chat = $1 AND id = $2', [chat, id])).rowCount ?? 0) >
      0,
    remove: async (id) => {
      await pool.query('DELETE FROM agent_tasks WHERE id = $1', [id]);
    },
    setPaused: async (chat, id, at) => {
      const r = await pool.query<TaskRow>(
        `UPDATE agent_tasks SET paused_at = $3 WHERE chat = $1 AND id = $2 RETURNING ${TASK_COLUMNS}`,
        [chat, id, at ?? null],
      );
      return r.rows[0] && toTask(r.rows[0]);
    },
    update: (chat, id, change) =>
      inTx(pool, [], async (c) => {
        if (change.prompt !== undefined)
          await c.query('UPDATE agent_tasks SET prompt = $3 WHERE chat = $1 AND id = $2', [
            chat,
            id,
            escapeNul(change.prompt),
          ]);
        const t = change.timing;
        if (t)
          await c.query(
            'UPDATE agent_tasks SET cron = $3, every = $4, at = $5, time_zone = $6 WHERE chat = $1 AND id = $2',
            [chat, id, t.cron ?? null, t.every ?? null, t.at ?? null, t.timeZone ?? null],
          );
        return taskOf(c, chat, id);
      }),
  };
}

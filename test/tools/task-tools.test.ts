// pause_task, resume_task and update_task through the relay's side of the tool calls, on a real
// store: bound to the run's chat, matched on the task's id (its series id), a refused change changes
// nothing; and planUpdate, the pure part of update_task, as a table.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/schema.js';
import type { ChatKey } from '../../src/core/types.js';
import { mediaPolicy } from '../../src/queue/adapters.js';
import { type Db, openDb } from '../../src/store/sqlite/db.js';
import { storeOver } from '../../src/store/sqlite/open.js';
import { ALL_MIGRATIONS } from '../../src/store/sqlite/schema.js';
import { type AgentTask, allTasks, tasksForChat, tasksMigration } from '../../src/store/sqlite/tasks.js';
import { ToolError } from '../../src/tools/handlers.js';
import { createToolHost, type ToolHost } from '../../src/tools/host.js';
import { planUpdate } from '../../src/tools/update-task.js';

const CHAT: ChatKey = 'twilio:+15550001111';
const OTHER: ChatKey = 'twilio:+15550002222';
const NOW = Date.parse('2026-07-01T08:00:00Z');
let dir: string;
let db: Db;
let host: ToolHost;
let changed: number;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'aw-task-tools-'));
  db = openDb(join(dir, 'db.sqlite'), ALL_MIGRATIONS);
  changed = 0;
  const config = configSchema.parse({ whatsapp: { enabled: false } });
  host = createToolHost({
    enabled: true,
    limits: config.tools,
    store: storeOver(db),
    mediaPolicy: mediaPolicy(config, join(dir, 'staged')),
    textRules: () => ({ limit: 1600 }),
    socket: join(dir, 'relay.sock'),
    entry: { command: process.execPath, args: ['/x/bin.js'] },
    timeZone: 'Europe/Paris',
    now: () => NOW,
  });
  host.onTasksChanged(() => changed++);
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const mint = (chat = CHAT, runKey = 'in:1') => host.tokens.mint({ chat, runKey, cwd: dir }, 60_000);
const call = (tool: string, args: Record<string, unknown>, chat = CHAT) =>
  host.call({ token: mint(chat), tool, args });
const refusal = async (p: Promise<unknown>) => {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ToolError);
  return (err as Error).message;
};
async function schedule(args: Record<string, unknown>): Promise<string> {
  const r = await call('schedule_task', args);
  return /Scheduled task (\S+):/.exec(r.text)?.[1] as string;
}

describe('task tools', () => {
  it('pause_task and resume_task act on the series id; list_tasks shows the pause', async () => {
    const id = await schedule({ prompt: 'water', every: '1h' });
    expect((await call('pause_task', { id })).text).toBe(`Paused task ${id}.`);
    expect(tasksForChat(db, CHAT)[0]?.pausedAt).toBe(NOW);
    expect((await call('list_tasks', {})).text).toBe(`${id}: every 1h (paused): water`);
    expect((await call('pause_task', { id })).text).toBe(`Task ${id} is already paused.`);
    expect((await call('resume_task', { id })).text).toBe(`Resumed task ${id}.`);
    expect(tasksForChat(db, CHAT)[0]?.pausedAt).toBeUndefined();
    // schedule_task, pause, resume: the scheduler was told each time (not for the no-op).
    expect(changed).toBe(3);
  });

  it('update_task changes the prompt and timing in place, keeping the id', async () => {
    const id = await schedule({ prompt: 'water', every: '1h' });
    const r = await call('update_task', {
      id,
      prompt: 'water the ferns',
      cron: '0 9 * * *',
      timeZone: 'Europe/Paris',
    });
    expect(r.text).toBe(
      `Updated ${id}: cron 0 9 * * * (Europe/Paris): water the ferns; next run 2026-07-02T07:00:00.000Z.`,
    );
    expect(tasksForChat(db, CHAT)).toMatchObject([
      { id, prompt: 'water the ferns', cron: '0 9 * * *', timeZone: 'Europe/Paris' },
    ]);
    expect(tasksForChat(db, CHAT)[0]?.every).toBeUndefined();
  });

  const refused: [string, string, Record<string, unknown>, RegExp][] = [
    ['an interval under the minimum', 'update_task', { every: '1m' }, /every: "1m" is too short.*unchanged/],
    ['a cron that fires too often', 'update_task', { cron: '* * * * *' }, /fires too often/],
    [
      'two timings',
      'update_task',
      { every: '2h', at: '2026-08-01T09:00' },
      /exactly one of cron, every or at/,
    ],
    ['a time in the past', 'update_task', { at: '2026-01-01T09:00Z' }, /in the past/],
    ['nothing to change', 'update_task', {}, /nothing to change/],
    ['an empty prompt', 'update_task', { prompt: '  ' }, /prompt is empty/],
    ['an unknown key', 'update_task', { check: ['true'] }, /check/],
  ];
  it.each(refused)(
    'update_task refuses %s with a sentence and changes nothing',
    async (_n, tool, args, why) => {
      const id = await schedule({ prompt: 'water', every: '1h' });
      const before = tasksForChat(db, CHAT);
      expect(await refusal(call(tool, { id, ...args }))).toMatch(why);
      expect(tasksForChat(db, CHAT)).toEqual(before);
    },
  );

  it.each(['pause_task', 'resume_task', 'update_task'])(
    '%s on a task of another chat is refused',
    async (tool) => {
      const id = await schedule({ prompt: 'water', every: '1h' });
      const msg = await refusal(call(tool, tool === 'update_task' ? { id, prompt: 'x' } : { id }, OTHER));
      expect(msg).toBe(`${tool}: no task ${id} in this chat (list_tasks shows them)`);
      expect(tasksForChat(db, CHAT)).toMatchObject([{ id, prompt: 'water' }]);
      expect(tasksForChat(db, CHAT)[0]?.pausedAt).toBeUndefined();
    },
  );
});

describe('planUpdate', () => {
  const task: AgentTask = {
    id: 't1',
    chat: CHAT,
    prompt: 'water',
    every: '1h',
    timeZone: 'UTC',
    createdAt: 0,
  };
  const rows: [string, Parameters<typeof planUpdate>[1], object][] = [
    ['prompt only: timing untouched', { prompt: 'p2' }, { ok: true, change: { prompt: 'p2' } }],
    [
      'a zone alone moves the same timing',
      { timeZone: 'Europe/Paris' },
      { ok: true, change: { timing: { every: '1h', timeZone: 'Europe/Paris' } } },
    ],
    [
      'new timing keeps the zone',
      { every: '2h' },
      { ok: true, change: { timing: { every: '2h', timeZone: 'UTC' } }, nextAt: NOW + 2 * 3600_000 },
    ],
    [
      'cron replaces every',
      { cron: '0 9 * * *' },
      { ok: true, change: { timing: { cron: '0 9 * * *', timeZone: 'UTC' } } },
    ],
    ['under the minimum', { every: '4m' }, { ok: false }],
  ];
  it.each(rows)('%s', (_n, req, want) => {
    expect(planUpdate(task, req, 5 * 60_000, NOW)).toMatchObject(want);
  });
});

describe('a store file from before pause_task', () => {
  it('is still listed read-only (status, schedules) before a relay migrates it', () => {
    const file = join(dir, 'old.sqlite');
    const old = openDb(file, [{ ...tasksMigration, steps: tasksMigration.steps.slice(0, 1) }]);
    old
      .prepare(
        "INSERT INTO agent_tasks (id, chat, call_key, prompt, every, created_at) VALUES ('t1', ?, 'k', 'water', '1h', 1)",
      )
      .run(CHAT);
    old.close();
    const ro = new DatabaseSync(file, { readOnly: true });
    try {
      expect(allTasks(ro)).toEqual([{ id: 't1', chat: CHAT, prompt: 'water', every: '1h', createdAt: 1 }]);
    } finally {
      ro.close();
    }
  });
});

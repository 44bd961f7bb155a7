// A task keeps its id across firings (its series id): pausing it stops the firings, resuming brings
// them back on its own rhythm, and changing its prompt changes the next firing without moving it or
// firing twice. The scheduler over a real store, a fake clock and the SystemRunner double.
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkEnv, createRunCheck } from '../../src/heartbeat/run-check.js';
import { createScheduler, type Scheduler } from '../../src/heartbeat/scheduler.js';
import { type Db, openDb } from '../../src/store/sqlite/db.js';
import { storeOver } from '../../src/store/sqlite/open.js';
import { ALL_MIGRATIONS } from '../../src/store/sqlite/schema.js';
import type { TaskStore } from '../../src/store/sqlite/tasks.js';
import { captureLog, FakeClock, FakeRunner, jobDeps, ok, tempDir } from './helpers.js';
import { HOUR, MIN, OWNER, T0 } from './schedule-harness.js';

let tmp: ReturnType<typeof tempDir>;
let db: Db;
let tasks: TaskStore;
let clock: FakeClock;
let runner: FakeRunner;
let scheduler: Scheduler;

beforeEach(() => {
  tmp = tempDir();
  db = openDb(join(tmp.dir, 'agentwire.db'), ALL_MIGRATIONS);
  tasks = storeOver(db).tasks;
  clock = new FakeClock(T0);
  runner = new FakeRunner(clock);
  runner.replies = [ok('done')];
  scheduler = createScheduler({
    runner,
    clock,
    ...jobDeps(db),
    log: captureLog().log,
    runCheck: createRunCheck({ env: checkEnv(process.env), cwd: tmp.dir }),
    config: { heartbeat: { everyMinutes: 0 }, schedules: [] },
    defaultTarget: () => undefined,
    tasks: { ...tasks, serves: () => true },
  });
});
afterEach(async () => {
  scheduler.stop();
  await scheduler.whenIdle();
  db.close();
  tmp.cleanup();
});

const firings = () => runner.runs.map((r) => [r.at - T0, r.prompt]);

describe('a task series', () => {
  it('update_task changes the next firing in place; pause stops it; resume brings it back on its rhythm', async () => {
    const added = await tasks.add({ chat: OWNER, prompt: 'water', every: '30m' }, 'k1', 10, T0);
    if (added.type !== 'added') throw new Error('not added');
    const id = added.task.id;
    scheduler.start();
    await scheduler.syncTasks();
    await clock.advance(35 * MIN);
    expect(firings()).toEqual([[30 * MIN, 'water']]);

    // A new prompt at +35m: the next firing stays at +60m (not a new rhythm from now), once.
    await tasks.update(OWNER, id, { prompt: 'water the ferns' });
    await scheduler.syncTasks();
    await clock.advance(26 * MIN);
    expect(firings()).toEqual([
      [30 * MIN, 'water'],
      [60 * MIN, 'water the ferns'],
    ]);

    await tasks.setPaused(OWNER, id, clock.now());
    await scheduler.syncTasks();
    await clock.advance(2 * HOUR);
    expect(firings()).toHaveLength(2);
    expect(scheduler.status().schedules).toEqual([]);

    // Resumed at +3h01: of the four firings missed while paused only the latest (+3h, a minute
    // old) runs, late, as after a restart; then the old rhythm goes on.
    await tasks.setPaused(OWNER, id, undefined);
    await scheduler.syncTasks();
    await clock.advance(30 * MIN);
    expect(firings().slice(2)).toEqual([
      [3 * HOUR + MIN, 'water the ferns'],
      [3 * HOUR + 30 * MIN, 'water the ferns'],
    ]);
    expect(scheduler.status().schedules.map((s) => s.id)).toEqual([`task:${id}`]);
  });

  it('a new timing starts a new rhythm from the change', async () => {
    const added = await tasks.add({ chat: OWNER, prompt: 'check', every: '30m' }, 'k1', 10, T0);
    if (added.type !== 'added') throw new Error('not added');
    scheduler.start();
    await scheduler.syncTasks();
    await clock.advance(10 * MIN);
    await tasks.update(OWNER, added.task.id, { timing: { every: '1h' } });
    await scheduler.syncTasks();
    await clock.advance(65 * MIN);
    expect(firings()).toEqual([[70 * MIN, 'check']]);
  });
});

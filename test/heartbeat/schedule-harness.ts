// Shared set-up for the schedule tests: a fake clock, the SystemRunner double, a real SQLite file
// (closed and reopened to simulate a restart) and the real pre-check runner.
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import type { ChatKey } from '../../src/core/types.js';
import { checkEnv, createRunCheck } from '../../src/heartbeat/run-check.js';
import { createScheduler, type Scheduler } from '../../src/heartbeat/scheduler.js';
import type { ScheduleConfig } from '../../src/heartbeat/settings.js';
import type { Db } from '../../src/store/sqlite/db.js';
import { captureLog, FakeClock, FakeRunner, jobDeps, ok, openStateDb, tempDir } from './helpers.js';

export const OWNER: ChatKey = 'whatsapp:+15551234567';
export const MIN = 60_000;
export const HOUR = 60 * MIN;
export const T0 = Date.parse('2026-07-01T10:00:00Z'); // a Wednesday

export interface Harness {
  tmp: ReturnType<typeof tempDir>;
  db: Db;
  clock: FakeClock;
  runner: FakeRunner;
  logs: ReturnType<typeof captureLog>;
  start(schedules: ScheduleConfig[]): Scheduler;
  /** Simulates the relay stopping: the scheduler ends and the store file is closed and reopened. */
  restart(): void;
}

export const sched = (s: Partial<ScheduleConfig> & { id: string }): ScheduleConfig => ({
  target: OWNER,
  prompt: 'Send me the plan.',
  checkTimeoutSeconds: 60,
  ...s,
});

/** Registers before/after hooks; the returned object's fields are fresh in each test. */
export function useHarness(): Harness {
  let scheduler: Scheduler | undefined;
  let file = '';
  const h = {} as Harness;
  beforeEach(() => {
    h.tmp = tempDir();
    file = join(h.tmp.dir, 'agentwire.db');
    h.db = openStateDb(file);
    h.clock = new FakeClock(T0);
    h.runner = new FakeRunner(h.clock);
    h.runner.replies = [ok('Here is your plan.')];
    h.logs = captureLog();
  });
  afterEach(async () => {
    scheduler?.stop();
    await scheduler?.whenIdle();
    scheduler = undefined;
    h.db.close();
    h.tmp.cleanup();
  });
  h.start = (schedules) => {
    scheduler = createScheduler({
      runner: h.runner,
      clock: h.clock,
      ...jobDeps(h.db),
      log: h.logs.log,
      runCheck: createRunCheck({ env: checkEnv(process.env), cwd: h.tmp.dir, killGraceMs: 200 }),
      config: { heartbeat: { everyMinutes: 0 }, schedules },
      defaultTarget: () => undefined,
    });
    scheduler.start();
    return scheduler;
  };
  h.restart = () => {
    scheduler?.stop();
    scheduler = undefined;
    h.db.close();
    h.db = openStateDb(file);
  };
  return h;
}

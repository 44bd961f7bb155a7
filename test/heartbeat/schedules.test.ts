// Schedules, driven by a fake clock over a real SQLite file (closed and reopened for restarts),
// with real child processes for the pre-check commands.
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChatKey } from '../../src/core/types.js';
import { checkEnv, createRunCheck } from '../../src/heartbeat/run-check.js';
import { createScheduler, type Scheduler } from '../../src/heartbeat/scheduler.js';
import type { ScheduleConfig } from '../../src/heartbeat/settings.js';
import { loadJobState } from '../../src/heartbeat/state.js';
import type { Db } from '../../src/store/db.js';
import {
  agentError,
  captureLog,
  deferred,
  FakeClock,
  FakeRunner,
  ok,
  openStateDb,
  tempDir,
} from './helpers.js';

const OWNER: ChatKey = 'whatsapp:+15551234567';
const MIN = 60_000;
const HOUR = 60 * MIN;
const T0 = Date.parse('2026-07-01T10:00:00Z'); // a Wednesday

let tmp: ReturnType<typeof tempDir>;
let file: string;
let db: Db;
let clock: FakeClock;
let runner: FakeRunner;
let logs: ReturnType<typeof captureLog>;
let scheduler: Scheduler | undefined;

beforeEach(() => {
  tmp = tempDir();
  file = join(tmp.dir, 'agentwire.db');
  db = openStateDb(file);
  clock = new FakeClock(T0);
  runner = new FakeRunner(clock);
  runner.replies = [ok('Here is your plan.')];
  logs = captureLog();
});

afterEach(async () => {
  scheduler?.stop();
  await scheduler?.whenIdle();
  scheduler = undefined;
  db.close();
  tmp.cleanup();
});

const sched = (s: Partial<ScheduleConfig> & { id: string }): ScheduleConfig => ({
  target: OWNER,
  prompt: 'Send me the plan.',
  checkTimeoutSeconds: 60,
  ...s,
});

function start(schedules: ScheduleConfig[]): Scheduler {
  scheduler = createScheduler({
    runner,
    clock,
    db,
    log: logs.log,
    runCheck: createRunCheck({ env: checkEnv(process.env), cwd: tmp.dir, killGraceMs: 200 }),
    config: { heartbeat: { everyMinutes: 0 }, schedules },
    defaultTarget: () => undefined,
  });
  scheduler.start();
  return scheduler;
}

/** Simulates the relay stopping: the scheduler ends and the store file is closed and reopened. */
function restart(): void {
  scheduler?.stop();
  scheduler = undefined;
  db.close();
  db = openStateDb(file);
}

const at = (r: { at: number }) => new Date(r.at).toISOString();

describe('timing', () => {
  it('every weekday at 08:00 in its zone', async () => {
    start([sched({ id: 'plan', cron: '0 8 * * 1-5', timeZone: 'Europe/Berlin' })]);
    await clock.advance(7 * 24 * HOUR);
    // Thu, Fri, (weekend skipped), Mon, Tue, Wed — 08:00 CEST is 06:00Z.
    expect(runner.runs.map(at)).toEqual([
      '2026-07-02T06:00:00.000Z',
      '2026-07-03T06:00:00.000Z',
      '2026-07-06T06:00:00.000Z',
      '2026-07-07T06:00:00.000Z',
      '2026-07-08T06:00:00.000Z',
    ]);
    expect(runner.delivered.map((d) => d.key)).toEqual(runner.runs.map((r) => `schedule:plan:${r.at}`));
  });

  it('may start a session and counts as activity in it (unlike heartbeats)', async () => {
    start([sched({ id: 'poll', every: '15m' })]);
    await clock.advance(45 * MIN);
    expect(runner.runs.map((r) => (r.at - T0) / MIN)).toEqual([15, 30, 45]);
    expect(runner.runs[0]?.opts).toEqual({ allowNewSession: true, touchIdle: true, label: 'schedule:poll' });
    expect(runner.created).toEqual([OWNER]);
  });

  it('a reply of only HEARTBEAT_OK sends nothing, as for heartbeats', async () => {
    runner.replies = [ok('HEARTBEAT_OK')];
    const s = start([sched({ id: 'poll', every: '15m' })]);
    await clock.advance(15 * MIN);
    expect(runner.runs).toHaveLength(1);
    expect(runner.delivered).toEqual([]);
    expect(s.status().schedules[0]).toMatchObject({
      id: 'poll',
      lastOutcome: 'silent',
      nextAt: T0 + 30 * MIN,
    });
  });

  it('a one-shot fires once', async () => {
    start([sched({ id: 'dentist', at: '2026-07-01T12:00:00Z', prompt: 'Remind me of the dentist.' })]);
    await clock.advance(48 * HOUR);
    expect(runner.runs.map((r) => [at(r), r.prompt])).toEqual([
      ['2026-07-01T12:00:00.000Z', 'Remind me of the dentist.'],
    ]);
    expect(loadJobState(db, 'schedule:dentist')?.done).toBe(true);
  });
});

describe('busy chat', () => {
  it('retries every minute until the chat is free, with the same occurrence', async () => {
    start([sched({ id: 'plan', cron: '0 12 * * *', timeZone: 'UTC' })]);
    runner.sessions.add(OWNER);
    runner.busy.add(OWNER);
    await clock.advance(2 * HOUR + 2 * MIN); // 12:00 and 12:01 find it busy
    expect(runner.runs).toHaveLength(0);
    runner.busy.delete(OWNER);
    await clock.advance(1 * MIN);
    expect(runner.runs.map(at)).toEqual(['2026-07-01T12:03:00.000Z']);
    expect(runner.delivered.map((d) => d.key)).toEqual([
      `schedule:plan:${Date.parse('2026-07-01T12:00:00Z')}`,
    ]);
  });

  it('gives way to the next occurrence rather than piling up', async () => {
    start([sched({ id: 'poll', every: '1m' })]);
    runner.sessions.add(OWNER);
    runner.busy.add(OWNER);
    await clock.advance(10 * MIN);
    expect(runner.runs).toHaveLength(0);
    runner.busy.delete(OWNER);
    await clock.advance(1 * MIN);
    expect(runner.runs).toHaveLength(1);
  });
});

describe('a schedule whose agent fails', () => {
  it('is reported once to the target chat, and the next tick still runs', async () => {
    runner.replies = [
      agentError('The agent timed out after 600 s.'),
      agentError('The agent timed out after 600 s.'),
      ok('CI is green again.'),
    ];
    const s = start([sched({ id: 'ci', every: '15m', prompt: 'Check CI.' })]);
    await clock.advance(30 * MIN);
    expect(runner.runs).toHaveLength(2);
    expect(runner.delivered).toEqual([
      {
        chat: OWNER,
        key: `schedule:ci:${T0 + 15 * MIN}:failed`,
        text: 'Scheduled job "ci" failed: The agent timed out after 600 s. It will run again at its next time.',
        media: [],
      },
    ]);
    expect(s.status().schedules[0]).toMatchObject({ lastOutcome: 'failed' });
    await clock.advance(15 * MIN);
    expect(runner.delivered.map((d) => d.text)).toEqual([
      'Scheduled job "ci" failed: The agent timed out after 600 s. It will run again at its next time.',
      'CI is green again.',
    ]);
    expect(loadJobState(db, 'schedule:ci')).toMatchObject({ failureStreak: 0, lastOutcome: 'sent' });
  });

  it('a failure streak survives a restart: still reported only once', async () => {
    runner.replies = [agentError('The agent exited with code 1.')];
    start([sched({ id: 'ci', every: '15m' })]);
    await clock.advance(15 * MIN);
    restart();
    start([sched({ id: 'ci', every: '15m' })]);
    await clock.advance(15 * MIN);
    expect(runner.runs).toHaveLength(2);
    expect(runner.delivered).toHaveLength(1);
  });
});

describe('pre-check', () => {
  let calls: string;
  const script = (name: string, body: string): string[] => {
    const path = join(tmp.dir, `${name}.sh`);
    writeFileSync(path, `#!/bin/sh\necho run >> "${calls}"\n${body}\n`);
    chmodSync(path, 0o755);
    return [path];
  };
  const checkRuns = () =>
    existsSync(calls) ? readFileSync(calls, 'utf8').split('\n').filter(Boolean).length : 0;
  beforeEach(() => {
    calls = join(tmp.dir, 'calls.log');
  });

  it('exit 1: the agent is not woken', async () => {
    const s = start([sched({ id: 'mail', every: '15m', check: script('fail', 'echo "3 new"; exit 1') })]);
    await clock.advance(15 * MIN);
    await s.whenIdle();
    expect(checkRuns()).toBe(1);
    expect(runner.runs).toHaveLength(0);
    expect(runner.delivered).toHaveLength(0);
    expect(s.status().schedules[0]).toMatchObject({ lastOutcome: 'check_quiet' });
  });

  it('exit 0 printing nothing (or only blank lines): the agent is not woken', async () => {
    const s = start([
      sched({ id: 'mail', every: '15m', check: script('quiet', 'printf "\\n  \\n"; exit 0') }),
    ]);
    await clock.advance(15 * MIN);
    await s.whenIdle();
    expect(checkRuns()).toBe(1);
    expect(runner.runs).toHaveLength(0);
  });

  it('exit 0 printing something: the agent is woken with the output', async () => {
    const s = start([
      sched({
        id: 'mail',
        every: '15m',
        prompt: 'Summarise these.',
        check: script('found', 'echo "2 new mails from Ann"'),
      }),
    ]);
    await clock.advance(15 * MIN);
    await s.whenIdle();
    expect(runner.runs.map((r) => r.prompt)).toEqual([
      "Summarise these.\n\nOutput of this schedule's check command:\n```\n2 new mails from Ann\n```",
    ]);
    expect(runner.delivered).toHaveLength(1);
  });

  it('a check that hangs past its timeout is killed, not woken on, and reported once', async () => {
    const pidFile = join(tmp.dir, 'hang.pid');
    const argv = script('hang', `echo $$ > "${pidFile}"\necho partial\nexec sleep 30`);
    const s = start([sched({ id: 'mail', every: '15m', check: argv, checkTimeoutSeconds: 1 })]);
    await clock.advance(15 * MIN);
    await s.whenIdle();
    expect(runner.runs).toHaveLength(0);
    expect(runner.delivered.map((d) => d.text)).toEqual([
      'Scheduled job "mail": its check command took longer than 1 s and was stopped.',
    ]);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(() => process.kill(pid, 0)).toThrow();
    // The next tick runs the check again; the streak is not reported twice.
    await clock.advance(15 * MIN);
    await s.whenIdle();
    expect(checkRuns()).toBe(2);
    expect(runner.delivered).toHaveLength(1);
  });

  it('a check that is not installed is reported', async () => {
    const s = start([sched({ id: 'mail', every: '15m', check: ['agentwire-no-such-check-command'] })]);
    await clock.advance(15 * MIN);
    await s.whenIdle();
    expect(runner.runs).toHaveLength(0);
    expect(runner.delivered.map((d) => d.text)).toEqual([
      'Scheduled job "mail": its check command could not run (agentwire-no-such-check-command was not found).',
    ]);
  });

  it('a busy retry reuses the check output instead of running the check again', async () => {
    runner.sessions.add(OWNER);
    runner.busy.add(OWNER);
    const s = start([sched({ id: 'mail', every: '1h', check: script('found', 'echo "1 new mail"') })]);
    await clock.advance(1 * HOUR);
    await s.whenIdle();
    runner.busy.delete(OWNER);
    await clock.advance(1 * MIN);
    await s.whenIdle();
    expect(checkRuns()).toBe(1);
    expect(runner.runs).toHaveLength(1);
    expect(runner.runs[0]?.prompt).toContain('1 new mail');
  });
});

describe('restarts', () => {
  it('a one-shot missed while stopped fires once at start, late, and says so', async () => {
    const dentist = sched({ id: 'dentist', at: '2026-07-01T12:00:00Z', prompt: 'Remind me of the dentist.' });
    start([dentist]);
    await clock.advance(1 * HOUR); // 11:00, stopped before it was due
    restart();
    await clock.advance(4 * HOUR); // relay down until 15:00 (real state file reopened)
    start([dentist]);
    await clock.advance(0);
    expect(runner.runs.map((r) => [at(r), r.prompt])).toEqual([
      [
        '2026-07-01T15:00:00.000Z',
        '(Scheduled job "dentist" was due at 2026-07-01 12:00 UTC and runs 3 h late, because agentwire was not ' +
          'running then.)\n\nRemind me of the dentist.',
      ],
    ]);
    const late = logs.lines().filter((l) => String(l.msg).includes('runs 3 h late'));
    expect(late).toHaveLength(1);
    expect(late[0]).toMatchObject({ level: 40, schedule: 'dentist', lateMs: 3 * HOUR });
    // And never again, however often the relay restarts.
    restart();
    start([dentist]);
    await clock.advance(24 * HOUR);
    expect(runner.runs).toHaveLength(1);
  });

  it('recurring schedules do not fire their missed runs all at once', async () => {
    const all = [
      sched({ id: 'plan', cron: '0 8 * * *', timeZone: 'UTC' }),
      sched({ id: 'hourly', every: '1h' }),
      sched({ id: 'noon', cron: '0 12 * * *', timeZone: 'UTC' }),
    ];
    start(all);
    await clock.advance(1 * MIN);
    restart();
    clock.t = Date.parse('2026-07-03T09:30:00Z'); // two days later, off the hourly phase
    start(all);
    await clock.advance(0);
    expect(runner.runs).toHaveLength(0);
    await clock.advance(40 * MIN); // 10:10: the hourly job, on its old phase
    expect(runner.runs.map(at)).toEqual(['2026-07-03T10:00:00.000Z']);
    await clock.advance(2 * HOUR); // 12:10
    expect(runner.runs.map(at)).toEqual([
      '2026-07-03T10:00:00.000Z',
      '2026-07-03T11:00:00.000Z',
      '2026-07-03T12:00:00.000Z',
      '2026-07-03T12:00:00.000Z',
    ]);
  });

  it('a quick restart across a due time still fires that run, once, a little late', async () => {
    const plan = sched({ id: 'plan', cron: '0 8 * * *', timeZone: 'UTC' });
    clock.t = Date.parse('2026-07-02T07:59:00Z');
    start([plan]);
    restart();
    clock.t = Date.parse('2026-07-02T08:03:00Z');
    start([plan]);
    await clock.advance(0);
    expect(runner.runs.map(at)).toEqual(['2026-07-02T08:03:00.000Z']);
    expect(runner.runs[0]?.prompt).toContain('runs 3 min late');
    await clock.advance(23 * HOUR);
    expect(runner.runs).toHaveLength(1);
  });

  it('a one-shot cut off by a stop is tried once more, then given up and reported once', async () => {
    const hang = deferred<ReturnType<typeof ok>>();
    runner.replies = [() => hang.promise];
    const job = sched({ id: 'report', at: '2026-07-01T11:00:00Z' });
    start([job]);
    await clock.advance(1 * HOUR); // the run begins and never ends: the relay "dies"
    restart();
    runner.busy.clear(); // a new process: no lane is busy
    start([job]);
    await clock.advance(0);
    expect(runner.runs).toHaveLength(2); // tried once more
    restart();
    runner.busy.clear();
    start([job]);
    await clock.advance(0);
    expect(runner.runs).toHaveLength(2);
    expect(runner.delivered.map((d) => d.text)).toEqual([
      'Scheduled job "report" was not run: agentwire stopped twice while running it, so it was given up.',
    ]);
    restart();
    start([job]);
    await clock.advance(HOUR);
    expect(runner.delivered).toHaveLength(1);
    hang.resolve(ok('too late'));
  });

  it('a changed schedule starts over: an edited one-shot fires again', async () => {
    start([sched({ id: 'x', at: '2026-07-01T11:00:00Z' })]);
    await clock.advance(2 * HOUR);
    restart();
    start([sched({ id: 'x', at: '2026-07-01T13:00:00Z' })]);
    await clock.advance(1 * HOUR);
    expect(runner.runs.map(at)).toEqual(['2026-07-01T11:00:00.000Z', '2026-07-01T13:00:00.000Z']);
  });
});

describe('status', () => {
  it('lists each schedule with its next run', async () => {
    const s = start([
      sched({ id: 'plan', cron: '0 8 * * 1-5', timeZone: 'Europe/Berlin' }),
      sched({ id: 'once', at: '2026-07-04T09:00', timeZone: 'America/New_York' }),
    ]);
    expect(s.status()).toEqual({
      heartbeat: { enabled: false },
      schedules: [
        {
          id: 'plan',
          timing: 'cron 0 8 * * 1-5 (Europe/Berlin)',
          target: OWNER,
          nextAt: Date.parse('2026-07-02T06:00:00Z'),
          lastAt: undefined,
          lastOutcome: undefined,
          lastDetail: undefined,
        },
        {
          id: 'once',
          timing: 'at 2026-07-04T09:00 (America/New_York)',
          target: OWNER,
          nextAt: Date.parse('2026-07-04T13:00:00Z'),
          lastAt: undefined,
          lastOutcome: undefined,
          lastDetail: undefined,
        },
      ],
    });
  });
});

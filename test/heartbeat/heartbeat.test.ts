// The heartbeat ticker, driven by a fake clock over a real SQLite file, against a SystemRunner
// double that keeps the core's contract (busy lanes, no_session, deliver once per key).
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChatKey } from '../../src/core/types.js';
import { createScheduler, type Scheduler } from '../../src/heartbeat/scheduler.js';
import type { Db } from '../../src/store/sqlite/db.js';
import {
  abortedRun,
  agentError,
  captureLog,
  deferred,
  FakeClock,
  FakeRunner,
  jobDeps,
  ok,
  openStateDb,
  storedJob,
  tempDir,
} from './helpers.js';

const OWNER: ChatKey = 'whatsapp:+15551234567';
const MIN = 60_000;
const T0 = Date.parse('2026-07-01T10:00:00Z');

let tmp: ReturnType<typeof tempDir>;
let db: Db;
let clock: FakeClock;
let runner: FakeRunner;
let logs: ReturnType<typeof captureLog>;
let scheduler: Scheduler | undefined;

beforeEach(() => {
  tmp = tempDir();
  db = openStateDb(join(tmp.dir, 'agentwire.db'));
  clock = new FakeClock(T0);
  runner = new FakeRunner(clock);
  runner.sessions.add(OWNER);
  logs = captureLog();
});

afterEach(async () => {
  scheduler?.stop();
  await scheduler?.whenIdle();
  scheduler = undefined;
  db.close();
  tmp.cleanup();
});

function start(
  heartbeat: Record<string, unknown>,
  defaultTarget: () => ChatKey | undefined = () => undefined,
) {
  scheduler = createScheduler({
    runner,
    clock,
    ...jobDeps(db),
    log: logs.log,
    runCheck: async () => ({ type: 'failed', message: 'no checks here' }),
    config: { heartbeat, schedules: [] },
    defaultTarget,
  });
  scheduler.start();
  return scheduler;
}

const skips = (reason: string) =>
  logs.lines().filter((l) => l.msg === 'heartbeat skipped' && l.reason === reason).length;

describe('heartbeat ticks', () => {
  it('fires every 30 minutes by default, in the target session, without creating or touching it', async () => {
    start({ target: OWNER });
    await clock.advance(29 * MIN);
    expect(runner.runs).toHaveLength(0);
    await clock.advance(1 * MIN);
    expect(runner.runs).toHaveLength(1);
    await clock.advance(60 * MIN);
    expect(runner.runs.map((r) => (r.at - T0) / MIN)).toEqual([30, 60, 90]);
    for (const r of runner.runs) {
      expect(r.chat).toBe(OWNER);
      expect(r.opts).toEqual({ allowNewSession: false, touchIdle: false, label: 'heartbeat' });
      expect(r.prompt).toContain('answer exactly HEARTBEAT_OK');
    }
    // Every reply was HEARTBEAT_OK: nothing was sent.
    expect(runner.delivered).toEqual([]);
  });

  it('uses everyMinutes and a custom prompt', async () => {
    start({ target: OWNER, everyMinutes: 10, prompt: 'Check CI.' });
    await clock.advance(35 * MIN);
    expect(runner.runs.map((r) => [(r.at - T0) / MIN, r.prompt])).toEqual([
      [10, 'Check CI.'],
      [20, 'Check CI.'],
      [30, 'Check CI.'],
    ]);
  });

  it('everyMinutes 0 disables it', async () => {
    const s = start({ target: OWNER, everyMinutes: 0 });
    await clock.advance(24 * 60 * MIN);
    expect(runner.runs).toHaveLength(0);
    expect(clock.pending()).toBe(0);
    expect(s.status().heartbeat).toEqual({ enabled: false });
  });

  it('the default interval needs a target: WhatsApp disabled and no heartbeat.target leaves it off', async () => {
    const make = (heartbeat: Record<string, unknown>) =>
      createScheduler({
        runner,
        clock,
        ...jobDeps(db),
        log: logs.log,
        runCheck: async () => ({ type: 'failed', message: 'no checks here' }),
        config: { heartbeat, schedules: [], whatsapp: { enabled: false } },
        defaultTarget: () => undefined,
      });
    scheduler = make({});
    scheduler.start();
    await clock.advance(3 * 60 * MIN);
    expect(runner.runs).toHaveLength(0);
    expect(clock.pending()).toBe(0);
    expect(scheduler.status().heartbeat).toEqual({ enabled: false, reason: 'no_target' });
    expect(logs.lines().some((l) => String(l.msg).startsWith('heartbeat off: no heartbeat.target'))).toBe(
      true,
    );
    scheduler.stop();

    // A configured target turns the default on again, whatever the WhatsApp channel does.
    scheduler = make({ target: 'twilio:+15551234567' });
    runner.sessions.add('twilio:+15551234567');
    scheduler.start();
    await clock.advance(30 * MIN);
    expect(runner.runs.map((r) => r.chat)).toEqual(['twilio:+15551234567']);
  });

  it('delivers a real message with the token stripped, once per tick key', async () => {
    runner.replies = [ok('HEARTBEAT_OK'), ok('**HEARTBEAT_OK.**'), ok('CI on main is red.\n\nHEARTBEAT_OK')];
    start({ target: OWNER });
    await clock.advance(90 * MIN);
    expect(runner.delivered).toEqual([
      { chat: OWNER, key: `heartbeat:${T0 + 90 * MIN}`, text: 'CI on main is red.', media: [] },
    ]);
  });

  it('a reply with the token inside a sentence is delivered whole', async () => {
    runner.replies = [ok('I almost said HEARTBEAT_OK, but two mails need you.')];
    start({ target: OWNER });
    await clock.advance(30 * MIN);
    expect(runner.delivered.map((d) => d.text)).toEqual([
      'I almost said HEARTBEAT_OK, but two mails need you.',
    ]);
  });
});

describe('busy chats and runs in flight', () => {
  it('skips (and logs) a tick while the chat is busy, and does not queue it', async () => {
    start({ target: OWNER });
    runner.busy.add(OWNER);
    await clock.advance(30 * MIN);
    expect(runner.runs).toHaveLength(0);
    expect(skips('busy')).toBe(1);
    runner.busy.delete(OWNER);
    // Nothing runs when the chat frees up: the skipped tick is gone, the next comes on time.
    await clock.advance(29 * MIN);
    expect(runner.runs).toHaveLength(0);
    await clock.advance(1 * MIN);
    expect(runner.runs.map((r) => (r.at - T0) / MIN)).toEqual([60]);
  });

  it('at most one heartbeat in flight: a run longer than the interval swallows the ticks it covers', async () => {
    const slow = deferred<ReturnType<typeof ok>>();
    runner.replies = [() => slow.promise, ok('HEARTBEAT_OK')];
    const s = start({ target: OWNER, everyMinutes: 10 });
    await clock.advance(10 * MIN); // first tick starts and hangs
    await clock.advance(35 * MIN); // ticks at 20, 30, 40 come and go
    expect(runner.runs).toHaveLength(1);
    // A manual heartbeat meanwhile is refused too.
    expect(await s.fireHeartbeat({})).toEqual({ type: 'skipped', reason: 'in_flight', chat: undefined });
    slow.resolve(ok('HEARTBEAT_OK'));
    await s.whenIdle();
    await clock.advance(0);
    expect(runner.runs).toHaveLength(1); // no back-to-back catch-up run
    await clock.advance(5 * MIN); // 50 min: the next tick on the old phase
    expect(runner.runs.map((r) => (r.at - T0) / MIN)).toEqual([10, 50]);
    expect(skips('in_flight')).toBeGreaterThanOrEqual(2);
  });
});

describe('sessions and targets', () => {
  it('never starts a session: a chat without one is skipped', async () => {
    runner.sessions.clear();
    start({ target: OWNER });
    await clock.advance(60 * MIN);
    expect(runner.runs).toHaveLength(0);
    expect(runner.created).toEqual([]);
    expect(skips('no_session')).toBe(2);
  });

  it('uses the injected default target (the WhatsApp self-chat) when none is configured', async () => {
    let self: ChatKey | undefined;
    start({}, () => self);
    await clock.advance(30 * MIN);
    expect(runner.runs).toHaveLength(0);
    expect(skips('no_target')).toBe(1);
    self = OWNER; // the channel linked meanwhile
    await clock.advance(30 * MIN);
    expect(runner.runs.map((r) => r.chat)).toEqual([OWNER]);
  });

  it('never speaks to a group, even when the default target is one', async () => {
    runner.sessions.add('whatsapp:120363025246125244@g.us');
    const s = start({}, () => 'whatsapp:120363025246125244@g.us');
    await clock.advance(60 * MIN);
    expect(runner.runs).toHaveLength(0);
    expect(await s.fireHeartbeat({ to: 'whatsapp:120363025246125244@g.us' })).toMatchObject({
      type: 'refused',
      reason: 'group',
    });
    expect(runner.runs).toHaveLength(0);
  });

  it('never to "whoever wrote last": without a configured or default target nothing runs', async () => {
    runner.sessions.add('whatsapp:+4915100000000'); // a stranger's chat that has a session
    start({});
    await clock.advance(120 * MIN);
    expect(runner.runs).toHaveLength(0);
    // Said once at info; the repeats are debug.
    const lines = logs.lines().filter((l) => l.msg === 'heartbeat skipped' && l.reason === 'no_target');
    expect(lines.map((l) => l.level)).toEqual([30, 20, 20, 20]);
  });

  it('a group target in config is rejected', async () => {
    start({ target: 'whatsapp:120363025246125244@g.us' });
    await clock.advance(60 * MIN);
    expect(runner.runs).toHaveLength(0);
    expect(logs.lines().some((l) => l.msg === 'heartbeat.target: a heartbeat is never sent to a group')).toBe(
      true,
    );
  });
});

describe('active hours', () => {
  it('fires only inside a window that spans midnight, in the window zone', async () => {
    // 22:00-06:00 in New York (EDT, UTC-4): 02:00Z-10:00Z. Hourly ticks over one day from 10:00Z.
    start({
      target: OWNER,
      everyMinutes: 60,
      activeHours: { start: '22:00', end: '06:00', timeZone: 'America/New_York' },
    });
    await clock.advance(24 * 60 * MIN);
    const hours = runner.runs.map((r) => new Date(r.at).toISOString().slice(11, 16));
    expect(hours).toEqual(['02:00', '03:00', '04:00', '05:00', '06:00', '07:00', '08:00', '09:00']);
    expect(skips('outside_active_hours')).toBe(16);
  });

  it('follows the wall clock across a DST change', async () => {
    // Europe/Berlin falls back on 2026-10-25. Window 08:00-09:00 local: 06:00Z in summer, 07:00Z in winter.
    clock.t = Date.parse('2026-10-24T00:00:00Z');
    start({
      target: OWNER,
      everyMinutes: 60,
      activeHours: { start: '08:00', end: '09:00', timeZone: 'Europe/Berlin' },
    });
    await clock.advance(48 * 60 * MIN);
    expect(runner.runs.map((r) => new Date(r.at).toISOString())).toEqual([
      '2026-10-24T06:00:00.000Z',
      '2026-10-25T07:00:00.000Z',
    ]);
  });

  it('a manual heartbeat ignores active hours', async () => {
    const s = start({ target: OWNER, activeHours: { start: '08:00', end: '09:00', timeZone: 'UTC' } });
    expect(await s.fireHeartbeat({})).toEqual({ type: 'silent', chat: OWNER });
  });
});

describe('failures', () => {
  it('reports the first failure of a streak once, and keeps ticking', async () => {
    runner.replies = [
      agentError('The agent exited with code 1.'),
      agentError('The agent exited with code 1.'),
      ok('Back: CI is green.'),
    ];
    const s = start({ target: OWNER });
    await clock.advance(60 * MIN);
    expect(runner.runs).toHaveLength(2);
    expect(runner.delivered).toEqual([
      {
        chat: OWNER,
        key: `heartbeat:${T0 + 30 * MIN}:failed`,
        text: 'The heartbeat check-in failed: The agent exited with code 1. It will run again at its next time.',
        media: [],
      },
    ]);
    expect(s.status().heartbeat).toMatchObject({ lastOutcome: 'failed' });
    await clock.advance(30 * MIN);
    expect(runner.delivered.map((d) => d.text)).toEqual([
      'The heartbeat check-in failed: The agent exited with code 1. It will run again at its next time.',
      'Back: CI is green.',
    ]);
    expect(storedJob(db, 'heartbeat')?.failureStreak).toBe(0);
  });
});

describe('stopped runs', () => {
  it('a heartbeat killed by /stop or shutdown is skipped, not reported', async () => {
    runner.replies = [abortedRun()];
    const s = start({ target: OWNER });
    await clock.advance(30 * MIN);
    expect(runner.runs).toHaveLength(1);
    expect(runner.delivered).toEqual([]);
    expect(s.status().heartbeat).toMatchObject({ lastOutcome: 'skipped:stopped' });
    expect(storedJob(db, 'heartbeat')?.failureStreak).toBe(0);
  });
});

describe('manual heartbeat', () => {
  it('--dry-run runs the agent and returns what would be sent without sending', async () => {
    runner.replies = [ok('Two mails need you. HEARTBEAT_OK', ['/w/summary.txt'])];
    const s = start({ target: OWNER });
    expect(await s.fireHeartbeat({ dryRun: true })).toEqual({
      type: 'would_send',
      chat: OWNER,
      text: 'Two mails need you.',
      media: ['/w/summary.txt'],
    });
    expect(runner.delivered).toEqual([]);
  });

  it('--to sends to another direct chat', async () => {
    runner.replies = [ok('Hello.')];
    runner.sessions.add('twilio:+15557654321');
    const s = start({ target: OWNER });
    const r = await s.fireHeartbeat({ to: 'twilio:+15557654321' });
    expect(r).toMatchObject({ type: 'sent', chat: 'twilio:+15557654321', text: 'Hello.' });
    expect(runner.delivered.map((d) => d.chat)).toEqual(['twilio:+15557654321']);
  });

  it('works with everyMinutes 0 (no ticks) and leaves the tick state alone', async () => {
    const s = start({ target: OWNER, everyMinutes: 0 });
    expect(await s.fireHeartbeat({})).toEqual({ type: 'silent', chat: OWNER });
    expect(storedJob(db, 'heartbeat')).toBeUndefined();
  });
});

describe('restart', () => {
  it('keeps the phase across a restart instead of waiting a full interval again', async () => {
    const file = join(tmp.dir, 'agentwire.db');
    start({ target: OWNER });
    await clock.advance(40 * MIN); // ran at 30; next due at 60
    scheduler?.stop();
    db.close();
    db = openStateDb(file);
    await clock.advance(5 * MIN); // restarted at 45
    start({ target: OWNER });
    await clock.advance(15 * MIN);
    expect(runner.runs.map((r) => (r.at - T0) / MIN)).toEqual([30, 60]);
  });

  it('after a long stop fires only the latest missed tick, at once, and logs that the older are not made up', async () => {
    const file = join(tmp.dir, 'agentwire.db');
    start({ target: OWNER });
    await clock.advance(40 * MIN); // ran at 30; next due at 60
    scheduler?.stop();
    db.close();
    db = openStateDb(file);
    await clock.advance(85 * MIN); // back at 125: 60, 90 and 120 were missed
    start({ target: OWNER });
    await clock.advance(0);
    expect(runner.runs.map((r) => (r.at - T0) / MIN)).toEqual([30, 125]); // 120, 5 min late
    const older = 'heartbeat: older check-ins missed while stopped are not caught up';
    expect(logs.lines().filter((l) => l.msg === older)).toHaveLength(1);
    await clock.advance(25 * MIN); // the phase is kept: 150 is next
    expect(runner.runs.map((r) => (r.at - T0) / MIN)).toEqual([30, 125, 150]);
  });
});

describe('logs', () => {
  it('carry no phone number and no message text', async () => {
    runner.replies = [ok('Secret plan: buy milk.'), agentError('The agent exited with code 1.')];
    const s = start({ target: OWNER, everyMinutes: 10 });
    await clock.advance(20 * MIN);
    runner.busy.add(OWNER);
    await clock.advance(10 * MIN);
    await s.fireHeartbeat({ to: 'whatsapp:+15550001111@g.us' });
    const text = JSON.stringify(logs.lines());
    expect(text).toContain('heartbeat reply sent');
    expect(text).not.toContain('15551234567');
    expect(text).not.toContain('5550001111');
    expect(text).not.toContain('buy milk');
  });
});

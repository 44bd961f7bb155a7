// Schedules, driven by a fake clock over a real SQLite file (closed and reopened for restarts).
import { describe, expect, it } from 'vitest';
import { abortedRun, agentError, deferred, ok, storedJob } from './helpers.js';
import { HOUR, MIN, OWNER, sched, T0, useHarness } from './schedule-harness.js';

const h = useHarness();
const at = (r: { at: number }) => new Date(r.at).toISOString();

describe('timing', () => {
  it('every weekday at 08:00 in its zone', async () => {
    h.start([sched({ id: 'plan', cron: '0 8 * * 1-5', timeZone: 'Europe/Berlin' })]);
    await h.clock.advance(7 * 24 * HOUR);
    // Thu, Fri, (weekend skipped), Mon, Tue, Wed — 08:00 CEST is 06:00Z.
    expect(h.runner.runs.map(at)).toEqual([
      '2026-07-02T06:00:00.000Z',
      '2026-07-03T06:00:00.000Z',
      '2026-07-06T06:00:00.000Z',
      '2026-07-07T06:00:00.000Z',
      '2026-07-08T06:00:00.000Z',
    ]);
    expect(h.runner.delivered.map((d) => d.key)).toEqual(h.runner.runs.map((r) => `schedule:plan:${r.at}`));
  });

  it('may start a session and counts as activity in it (unlike heartbeats)', async () => {
    h.start([sched({ id: 'poll', every: '15m' })]);
    await h.clock.advance(45 * MIN);
    expect(h.runner.runs.map((r) => (r.at - T0) / MIN)).toEqual([15, 30, 45]);
    expect(h.runner.runs[0]?.opts).toEqual({
      allowNewSession: true,
      touchIdle: true,
      label: 'schedule:poll',
      runKey: `schedule:poll:${T0 + 15 * MIN}`,
    });
    expect(h.runner.created).toEqual([OWNER]);
  });

  it('a reply of only HEARTBEAT_OK sends nothing, as for heartbeats', async () => {
    h.runner.replies = [ok('HEARTBEAT_OK')];
    const s = h.start([sched({ id: 'poll', every: '15m' })]);
    await h.clock.advance(15 * MIN);
    expect(h.runner.runs).toHaveLength(1);
    expect(h.runner.delivered).toEqual([]);
    expect(s.status().schedules[0]).toMatchObject({
      id: 'poll',
      lastOutcome: 'silent',
      nextAt: T0 + 30 * MIN,
    });
  });

  it('a one-shot fires once', async () => {
    h.start([sched({ id: 'dentist', at: '2026-07-01T12:00:00Z', prompt: 'Remind me of the dentist.' })]);
    await h.clock.advance(48 * HOUR);
    expect(h.runner.runs.map((r) => [at(r), r.prompt])).toEqual([
      ['2026-07-01T12:00:00.000Z', 'Remind me of the dentist.'],
    ]);
    expect(storedJob(h.db, 'schedule:dentist')?.done).toBe(true);
  });
});

describe('busy chat', () => {
  it('retries every minute until the chat is free, with the same occurrence', async () => {
    h.start([sched({ id: 'plan', cron: '0 12 * * *', timeZone: 'UTC' })]);
    h.runner.sessions.add(OWNER);
    h.runner.busy.add(OWNER);
    await h.clock.advance(2 * HOUR + 2 * MIN); // 12:00 and 12:01 find it busy
    expect(h.runner.runs).toHaveLength(0);
    h.runner.busy.delete(OWNER);
    await h.clock.advance(1 * MIN);
    expect(h.runner.runs.map(at)).toEqual(['2026-07-01T12:03:00.000Z']);
    expect(h.runner.delivered.map((d) => d.key)).toEqual([
      `schedule:plan:${Date.parse('2026-07-01T12:00:00Z')}`,
    ]);
  });

  it('gives way to the next occurrence rather than piling up', async () => {
    h.start([sched({ id: 'poll', every: '1m' })]);
    h.runner.sessions.add(OWNER);
    h.runner.busy.add(OWNER);
    await h.clock.advance(10 * MIN);
    expect(h.runner.runs).toHaveLength(0);
    h.runner.busy.delete(OWNER);
    await h.clock.advance(1 * MIN);
    expect(h.runner.runs).toHaveLength(1);
  });
});

describe('a schedule whose agent fails', () => {
  it('is reported once to the target chat, and the next tick still runs', async () => {
    h.runner.replies = [
      agentError('The agent timed out after 600 s.'),
      agentError('The agent timed out after 600 s.'),
      ok('CI is green again.'),
    ];
    const s = h.start([sched({ id: 'ci', every: '15m', prompt: 'Check CI.' })]);
    await h.clock.advance(30 * MIN);
    expect(h.runner.runs).toHaveLength(2);
    expect(h.runner.delivered).toEqual([
      {
        chat: OWNER,
        key: `schedule:ci:${T0 + 15 * MIN}:failed`,
        text: 'Scheduled job "ci" failed: The agent timed out after 600 s. It will run again at its next time.',
        media: [],
      },
    ]);
    expect(s.status().schedules[0]).toMatchObject({ lastOutcome: 'failed' });
    await h.clock.advance(15 * MIN);
    expect(h.runner.delivered.map((d) => d.text)).toEqual([
      'Scheduled job "ci" failed: The agent timed out after 600 s. It will run again at its next time.',
      'CI is green again.',
    ]);
    expect(storedJob(h.db, 'schedule:ci')).toMatchObject({ failureStreak: 0, lastOutcome: 'sent' });
  });

  it('a failure streak survives a restart: still reported only once', async () => {
    h.runner.replies = [agentError('The agent exited with code 1.')];
    h.start([sched({ id: 'ci', every: '15m' })]);
    await h.clock.advance(15 * MIN);
    h.restart();
    h.start([sched({ id: 'ci', every: '15m' })]);
    await h.clock.advance(15 * MIN);
    expect(h.runner.runs).toHaveLength(2);
    expect(h.runner.delivered).toHaveLength(1);
  });
});

describe('restarts', () => {
  it('a one-shot missed while stopped fires once at start, late, and says so', async () => {
    const dentist = sched({ id: 'dentist', at: '2026-07-01T12:00:00Z', prompt: 'Remind me of the dentist.' });
    h.start([dentist]);
    await h.clock.advance(1 * HOUR); // 11:00, stopped before it was due
    h.restart();
    await h.clock.advance(4 * HOUR); // relay down until 15:00 (real state file reopened)
    h.start([dentist]);
    await h.clock.advance(0);
    expect(h.runner.runs.map((r) => [at(r), r.prompt])).toEqual([
      [
        '2026-07-01T15:00:00.000Z',
        '(Scheduled job "dentist" was due at 2026-07-01 12:00 UTC and runs 3 h late, because agentwire was not ' +
          'running then.)\n\nRemind me of the dentist.',
      ],
    ]);
    const late = h.logs.lines().filter((l) => String(l.msg).includes('runs 3 h late'));
    expect(late).toHaveLength(1);
    expect(late[0]).toMatchObject({ level: 40, schedule: 'dentist', lateMs: 3 * HOUR });
    // And never again, however often the relay restarts.
    h.restart();
    h.start([dentist]);
    await h.clock.advance(24 * HOUR);
    expect(h.runner.runs).toHaveLength(1);
  });

  it('recurring schedules do not fire their missed runs all at once', async () => {
    const all = [
      sched({ id: 'plan', cron: '0 8 * * *', timeZone: 'UTC' }),
      sched({ id: 'hourly', every: '1h' }),
      sched({ id: 'noon', cron: '0 12 * * *', timeZone: 'UTC' }),
    ];
    h.start(all);
    await h.clock.advance(1 * MIN);
    h.restart();
    h.clock.t = Date.parse('2026-07-03T09:30:00Z'); // two days later, off the hourly phase
    h.start(all);
    await h.clock.advance(0);
    expect(h.runner.runs).toHaveLength(0);
    await h.clock.advance(40 * MIN); // 10:10: the hourly job, on its old phase
    expect(h.runner.runs.map(at)).toEqual(['2026-07-03T10:00:00.000Z']);
    await h.clock.advance(2 * HOUR); // 12:10
    expect(h.runner.runs.map(at)).toEqual([
      '2026-07-03T10:00:00.000Z',
      '2026-07-03T11:00:00.000Z',
      '2026-07-03T12:00:00.000Z',
      '2026-07-03T12:00:00.000Z',
    ]);
  });

  it('a quick restart across a due time still fires that run, once, a little late', async () => {
    const plan = sched({ id: 'plan', cron: '0 8 * * *', timeZone: 'UTC' });
    h.clock.t = Date.parse('2026-07-02T07:59:00Z');
    h.start([plan]);
    h.restart();
    h.clock.t = Date.parse('2026-07-02T08:03:00Z');
    h.start([plan]);
    await h.clock.advance(0);
    expect(h.runner.runs.map(at)).toEqual(['2026-07-02T08:03:00.000Z']);
    expect(h.runner.runs[0]?.prompt).toContain('runs 3 min late');
    await h.clock.advance(23 * HOUR);
    expect(h.runner.runs).toHaveLength(1);
  });

  it('a one-shot cut off by a stop is tried once more, then given up and reported once', async () => {
    const hang = deferred<ReturnType<typeof ok>>();
    h.runner.replies = [() => hang.promise];
    const job = sched({ id: 'report', at: '2026-07-01T11:00:00Z' });
    try {
      h.start([job]);
      await h.clock.advance(1 * HOUR); // the run begins and never ends: the relay "dies"
      h.restart();
      h.runner.busy.clear(); // a new process: no lane is busy
      await h.clock.advance(5 * MIN);
      h.start([job]);
      await h.clock.advance(0);
      expect(h.runner.runs).toHaveLength(2); // tried once more, and it says why it is late
      expect(h.runner.runs[1]?.prompt).toContain(
        'runs 5 min late, because agentwire stopped while running it the first time',
      );
      h.restart();
      h.runner.busy.clear();
      h.start([job]);
      await h.clock.advance(0);
      expect(h.runner.runs).toHaveLength(2);
      expect(h.runner.delivered.map((d) => d.text)).toEqual([
        'Scheduled job "report" was not run: agentwire stopped twice while running it, so it was given up.',
      ]);
      h.restart();
      h.start([job]);
      await h.clock.advance(HOUR);
      expect(h.runner.delivered).toHaveLength(1);
    } finally {
      // Lets the abandoned runs end, so the test's clean-up does not wait on them.
      hang.resolve(ok('too late'));
    }
  });

  it('a changed schedule starts over: an edited one-shot fires again', async () => {
    h.start([sched({ id: 'x', at: '2026-07-01T11:00:00Z' })]);
    await h.clock.advance(2 * HOUR);
    h.restart();
    h.start([sched({ id: 'x', at: '2026-07-01T13:00:00Z' })]);
    await h.clock.advance(1 * HOUR);
    expect(h.runner.runs.map(at)).toEqual(['2026-07-01T11:00:00.000Z', '2026-07-01T13:00:00.000Z']);
  });
});

describe('stopped runs', () => {
  it('/stop in the chat is not reported as a failure, and the next tick still runs', async () => {
    h.runner.replies = [abortedRun(), ok('Done.')];
    const s = h.start([sched({ id: 'ci', every: '15m' })]);
    await h.clock.advance(15 * MIN);
    expect(h.runner.delivered).toEqual([]);
    expect(s.status().schedules[0]).toMatchObject({ lastOutcome: 'stopped' });
    await h.clock.advance(15 * MIN);
    expect(h.runner.delivered.map((d) => d.text)).toEqual(['Done.']);
  });

  it('a one-shot cut off by shutdown is not reported and runs again at the next start', async () => {
    const run = deferred<ReturnType<typeof ok>>();
    h.runner.replies = [() => run.promise, ok('Reminder: call home.')];
    const job = sched({ id: 'call', at: '2026-07-01T11:00:00Z' });
    const s = h.start([job]);
    await h.clock.advance(1 * HOUR);
    s.stop(); // the relay stops; its queue then kills the run
    run.resolve(abortedRun());
    await s.whenIdle();
    expect(h.runner.delivered).toEqual([]);
    h.restart();
    h.start([job]);
    await h.clock.advance(0);
    expect(h.runner.runs).toHaveLength(2);
    expect(h.runner.delivered.map((d) => d.text)).toEqual(['Reminder: call home.']);
  });
});

describe('status', () => {
  it('lists each schedule with its next run', async () => {
    const s = h.start([
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

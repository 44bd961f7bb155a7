import { describe, expect, it } from 'vitest';
import { markPaused, renderListing } from '../../src/cli/schedules.js';
import type { JobState } from '../../src/core/job-state.js';
import { fingerprint } from '../../src/core/timing.js';
import { buildListing } from '../../src/heartbeat/listing.js';
import type { ScheduleConfig } from '../../src/heartbeat/settings.js';

const NOW = Date.parse('2026-07-01T03:10:00Z'); // 05:10 in Berlin
const OWNER = 'whatsapp:+15551234567';
const sched = (s: Partial<ScheduleConfig> & { id: string }): ScheduleConfig => ({
  target: OWNER,
  prompt: 'p',
  checkTimeoutSeconds: 60,
  ...s,
});
const st = (s: Partial<JobState>): JobState => ({
  fingerprint: '',
  failureStreak: 0,
  attempts: 0,
  done: false,
  ...s,
});

describe('buildListing', () => {
  it('shows the first heartbeat tick inside active hours', () => {
    const l = buildListing(
      {
        heartbeat: { activeHours: { start: '08:00', end: '22:00', timeZone: 'Europe/Berlin' } },
        schedules: [],
      },
      () => undefined,
      NOW,
    );
    expect(l.heartbeat).toMatchObject({
      enabled: true,
      everyMinutes: 30,
      target: 'the linked WhatsApp self-chat',
      state: 'scheduled',
      nextAt: Date.parse('2026-07-01T06:10:00Z'), // 08:10 Berlin, on the 30-minute phase from 05:10
    });
  });

  it('heartbeat off by default when there is no target and WhatsApp is disabled', () => {
    const off = { heartbeat: {}, schedules: [], whatsapp: { enabled: false } };
    expect(buildListing(off, () => undefined, NOW).heartbeat).toEqual({
      enabled: false,
      reason: 'no_target',
    });
    expect(
      renderListing(
        buildListing(off, () => undefined, NOW),
        NOW,
      ),
    ).toContain(
      'heartbeat: off (no heartbeat.target, and WhatsApp, whose self-chat is the default, is disabled)',
    );
    const on = { ...off, heartbeat: { target: 'twilio:+15551234567' } };
    expect(buildListing(on, () => undefined, NOW).heartbeat).toMatchObject({
      enabled: true,
      target: 'twilio:+15551234567',
    });
  });

  it('heartbeat off', () => {
    expect(
      buildListing({ heartbeat: { everyMinutes: 0 }, schedules: [] }, () => undefined, NOW).heartbeat,
    ).toEqual({
      enabled: false,
    });
  });

  it('applies the start rules to each schedule', () => {
    const daily = sched({ id: 'daily', cron: '0 8 * * *', timeZone: 'UTC' });
    const once = sched({ id: 'once', at: '2026-06-30T09:00:00Z' });
    const gone = sched({ id: 'gone', at: '2026-06-30T09:00:00Z' });
    const cut = sched({ id: 'cut', at: '2026-06-30T09:00:00Z' });
    const edited = sched({ id: 'edited', at: '2026-06-30T10:00:00Z' });
    const states: Record<string, JobState> = {
      'schedule:daily': st({
        fingerprint: fingerprint(daily),
        nextRunAt: Date.parse('2026-06-29T08:00:00Z'),
        lastRunAt: 1,
        lastOutcome: 'sent',
      }),
      'schedule:gone': st({ fingerprint: fingerprint(gone), done: true, lastOutcome: 'sent' }),
      'schedule:cut': st({ fingerprint: fingerprint(cut), runningSince: 5, attempts: 2 }),
      // Stored for an earlier `at`: ignored, the edited one-shot is due.
      'schedule:edited': st({ fingerprint: fingerprint({ at: '2026-06-30T09:00:00Z' }), done: true }),
    };
    const l = buildListing(
      { heartbeat: { everyMinutes: 0 }, schedules: [daily, once, gone, cut, edited] },
      (j) => states[j],
      NOW,
    );
    expect(l.schedules.map((s) => [s.id, s.state, s.nextAt && new Date(s.nextAt).toISOString()])).toEqual([
      ['daily', 'scheduled', '2026-07-01T08:00:00.000Z'], // missed runs are not caught up
      ['once', 'due_now', '2026-06-30T09:00:00.000Z'],
      ['gone', 'done', undefined],
      ['cut', 'given_up', undefined],
      ['edited', 'due_now', '2026-06-30T10:00:00.000Z'],
    ]);
    expect(l.schedules[0]).toMatchObject({ lastAt: 1, lastOutcome: 'sent' });
  });

  it('renders a readable listing', () => {
    const l = buildListing(
      {
        heartbeat: { target: OWNER, activeHours: { start: '00:00', end: '24:00', timeZone: 'UTC' } },
        schedules: [
          sched({ id: 'plan', cron: '0 8 * * 1-5', timeZone: 'Europe/Berlin' }),
          sched({ id: 'once', at: '2026-06-30T09:00:00Z', timeZone: 'UTC' }),
        ],
      },
      (j) =>
        j === 'schedule:once'
          ? st({
              fingerprint: fingerprint({ at: '2026-06-30T09:00:00Z', timeZone: 'UTC' }),
              done: true,
              lastRunAt: Date.parse('2026-06-30T09:00:00Z'),
              lastOutcome: 'failed',
              lastDetail: 'Scheduled job "once" failed: The agent exited with code 1.',
            })
          : undefined,
      NOW,
    );
    expect(renderListing(l, NOW)).toBe(
      [
        // Chat keys are masked in the listing as in `status`.
        'heartbeat: every 30 min → whatsapp:…4567, active 00:00-24:00 UTC',
        '    next 2026-07-01 03:40 UTC (in 30 min)',
        '    last: never ran',
        'plan: cron 0 8 * * 1-5 (Europe/Berlin) → whatsapp:…4567',
        '    next 2026-07-01 08:00 Europe/Berlin (in 2 h 50 min)',
        '    last: never ran',
        'once: at 2026-06-30T09:00:00Z (UTC) → whatsapp:…4567',
        '    done (one-shot already ran)',
        '    last: 2026-06-30 09:00 UTC, failed — Scheduled job "once" failed: The agent exited with code 1.',
        '',
      ].join('\n'),
    );
  });
});

describe('a paused task in the listing', () => {
  it('shows as paused, with no next time', () => {
    const l = buildListing(
      {
        heartbeat: { everyMinutes: 0 },
        schedules: [sched({ id: 'task:t1', every: '1h' }), sched({ id: 'task:t2', every: '1h' })],
      },
      () => undefined,
      NOW,
    );
    const shown = renderListing(markPaused(l, new Set(['task:t1'])), NOW).split('\n');
    expect(shown.slice(1, 4)).toEqual([
      'task:t1: every 1h → whatsapp:…4567',
      '    paused (resume_task resumes it)',
      '    last: never ran',
    ]);
    expect(shown[5]).toMatch(/^ {4}next /);
  });
});

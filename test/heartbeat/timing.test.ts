import { describe, expect, it } from 'vitest';
import {
  describeTiming,
  fingerprint,
  lastOccurrence,
  nextOccurrence,
  parseTiming,
  type Timing,
} from '../../src/core/timing.js';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

function timing(f: Parameters<typeof parseTiming>[0]): Timing {
  const r = parseTiming(f);
  if (!r.ok) throw new Error(r.error);
  return r.timing;
}

describe('parseTiming', () => {
  it.each([
    [{ cron: '0 8 * * 1-5', timeZone: 'Mars/Olympus' }, 'timeZone', 'unknown time zone'],
    [{ cron: '0 25 * * *' }, 'cron', 'invalid cron expression'],
    [{ cron: 'every morning' }, 'cron', 'invalid cron expression'],
    [{ cron: '*/5 * * * * *' }, 'cron', 'invalid cron expression'], // seconds field refused
    [{ every: '10s' }, 'every', 'shorter than the minimum'],
    [{ every: 'soon' }, 'every', 'not an interval'],
    [{ at: 'tomorrow 9am' }, 'at', 'is not a time like'],
    [{ at: '07/01/2026 09:00' }, 'at', 'is not a time like'],
    [{ at: '2026-13-01T09:00' }, 'at', 'is not a time like'],
    [{}, 'cron', 'exactly one of'],
  ])('%j is refused at %s', (fields, key, message) => {
    const r = parseTiming(fields);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.key).toBe(key);
      expect(r.error).toContain(message);
    }
  });

  it('reads a local one-shot time in its zone, and an absolute one as written', () => {
    expect(timing({ at: '2026-07-01T09:00', timeZone: 'Europe/Berlin' })).toMatchObject({
      type: 'at',
      atMs: at('2026-07-01T07:00:00Z'),
    });
    expect(timing({ at: '2026-07-01T09:00', timeZone: 'America/New_York' })).toMatchObject({
      atMs: at('2026-07-01T13:00:00Z'),
    });
    expect(timing({ at: '2026-07-01T09:00:00Z', timeZone: 'Europe/Berlin' })).toMatchObject({
      atMs: at('2026-07-01T09:00:00Z'),
    });
    expect(timing({ at: '2026-07-01T09:00+05:30' })).toMatchObject({ atMs: at('2026-07-01T03:30:00Z') });
  });

  it('describes what was configured', () => {
    expect(describeTiming(timing({ cron: '0 8 * * 1-5', timeZone: 'Europe/Berlin' }))).toBe(
      'cron 0 8 * * 1-5 (Europe/Berlin)',
    );
    expect(describeTiming(timing({ every: '15m' }))).toBe('every 15m');
  });

  it('fingerprints change when the timing changes', () => {
    expect(fingerprint({ cron: '0 8 * * *' })).toBe(fingerprint({ cron: '0 8 * * *' }));
    expect(fingerprint({ cron: '0 8 * * *' })).not.toBe(fingerprint({ cron: '0 9 * * *' }));
    expect(fingerprint({ cron: '0 8 * * *' })).not.toBe(
      fingerprint({ cron: '0 8 * * *', timeZone: 'Europe/Berlin' }),
    );
  });
});

describe('occurrences', () => {
  const weekdays8 = timing({ cron: '0 8 * * 1-5', timeZone: 'Europe/Berlin' });

  it('cron: weekdays at 08:00 Berlin, skipping the weekend and following DST', () => {
    // Friday 2026-03-27 10:00 UTC → Monday 2026-03-30 08:00 CEST (DST began Sunday 03-29).
    expect(iso(nextOccurrence(weekdays8, at('2026-03-27T10:00:00Z'), 0))).toBe('2026-03-30T06:00:00.000Z');
    // Before DST the same wall time is an hour later in UTC.
    expect(iso(nextOccurrence(weekdays8, at('2026-03-26T10:00:00Z'), 0))).toBe('2026-03-27T07:00:00.000Z');
    // Strictly after: at exactly 08:00 the next one is tomorrow's.
    expect(iso(nextOccurrence(weekdays8, at('2026-03-30T06:00:00Z'), 0))).toBe('2026-03-31T06:00:00.000Z');
  });

  it('cron: a time skipped by DST fires once, at the first valid wall time', () => {
    const t = timing({ cron: '30 2 * * *', timeZone: 'Europe/Berlin' });
    const from = at('2026-03-28T12:00:00Z');
    const first = nextOccurrence(t, from, 0)!;
    const second = nextOccurrence(t, first, 0)!;
    expect(iso(first)).toBe('2026-03-29T01:00:00.000Z'); // 03:00 CEST: 02:30 did not exist
    expect(iso(second)).toBe('2026-03-30T00:30:00.000Z'); // 02:30 CEST
  });

  it('cron: lastOccurrence includes an occurrence at exactly the instant', () => {
    expect(iso(lastOccurrence(weekdays8, at('2026-03-30T06:00:00Z'), 0))).toBe('2026-03-30T06:00:00.000Z');
    expect(iso(lastOccurrence(weekdays8, at('2026-03-30T05:59:59Z'), 0))).toBe('2026-03-27T07:00:00.000Z');
  });

  it('every: keeps the phase of its anchor', () => {
    const t = timing({ every: '15m' });
    const anchor = at('2026-07-01T10:07:00Z');
    expect(iso(nextOccurrence(t, anchor, anchor))).toBe('2026-07-01T10:22:00.000Z');
    expect(iso(nextOccurrence(t, at('2026-07-01T13:00:00Z'), anchor))).toBe('2026-07-01T13:07:00.000Z');
    expect(iso(lastOccurrence(t, at('2026-07-01T13:00:00Z'), anchor))).toBe('2026-07-01T12:52:00.000Z');
    expect(iso(lastOccurrence(t, at('2026-07-01T13:07:00Z'), anchor))).toBe('2026-07-01T13:07:00.000Z');
  });

  it('at: once, and nothing after', () => {
    const t = timing({ at: '2026-07-01T09:00:00Z' });
    expect(iso(nextOccurrence(t, at('2026-06-30T00:00:00Z'), 0))).toBe('2026-07-01T09:00:00.000Z');
    expect(nextOccurrence(t, at('2026-07-01T09:00:00Z'), 0)).toBeUndefined();
    expect(iso(lastOccurrence(t, at('2026-07-02T00:00:00Z'), 0))).toBe('2026-07-01T09:00:00.000Z');
  });
});

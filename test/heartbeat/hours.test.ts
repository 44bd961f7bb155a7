import { describe, expect, it } from 'vitest';
import {
  activeHoursProblem,
  isValidTimeZone,
  isWithinActiveHours,
  localMinutes,
  parseClock,
} from '../../src/core/hours.js';

const at = (iso: string) => Date.parse(iso);

describe('isWithinActiveHours', () => {
  it.each([
    // Same-day window in Berlin (CEST, UTC+2 in July).
    ['2026-07-01T05:59:00Z', '08:00', '22:00', 'Europe/Berlin', false], // 07:59 local
    ['2026-07-01T06:00:00Z', '08:00', '22:00', 'Europe/Berlin', true], // 08:00 local, start inclusive
    ['2026-07-01T19:59:00Z', '08:00', '22:00', 'Europe/Berlin', true], // 21:59
    ['2026-07-01T20:00:00Z', '08:00', '22:00', 'Europe/Berlin', false], // 22:00, end exclusive
    // Across midnight in New York (EDT, UTC-4 in July).
    ['2026-07-02T01:59:00Z', '22:00', '06:00', 'America/New_York', false], // 21:59
    ['2026-07-02T02:00:00Z', '22:00', '06:00', 'America/New_York', true], // 22:00
    ['2026-07-02T04:00:00Z', '22:00', '06:00', 'America/New_York', true], // 00:00
    ['2026-07-02T09:59:00Z', '22:00', '06:00', 'America/New_York', true], // 05:59
    ['2026-07-02T10:00:00Z', '22:00', '06:00', 'America/New_York', false], // 06:00
    ['2026-07-02T16:00:00Z', '22:00', '06:00', 'America/New_York', false], // 12:00
    // The same instant is inside in one zone and outside in another.
    ['2026-07-01T12:00:00Z', '08:00', '22:00', 'Asia/Tokyo', true], // 21:00 JST
    ['2026-07-01T13:00:00Z', '08:00', '22:00', 'Asia/Tokyo', false], // 22:00 JST
    ['2026-07-01T13:00:00Z', '08:00', '22:00', 'Europe/London', true], // 14:00 BST
    // Half-hour and 45-minute offsets.
    ['2026-07-01T02:29:00Z', '08:00', '22:00', 'Asia/Kolkata', false], // 07:59 IST
    ['2026-07-01T02:30:00Z', '08:00', '22:00', 'Asia/Kolkata', true], // 08:00 IST
    ['2026-01-15T19:15:00Z', '08:00', '22:00', 'Pacific/Chatham', true], // 09:00 +13:45
    // 24:00 closes the day.
    ['2026-07-01T21:59:00Z', '08:00', '24:00', 'UTC', true],
    ['2026-07-01T07:59:00Z', '08:00', '24:00', 'UTC', false],
  ])('%s in %s-%s %s → %s', (iso, start, end, timeZone, expected) => {
    expect(isWithinActiveHours(at(iso), { start, end, timeZone })).toBe(expected);
  });

  // DST: the window follows the wall clock, so 08:00 local is a different UTC instant either side.
  it.each([
    // Europe/Berlin springs forward 2026-03-29 02:00 → 03:00.
    ['2026-03-28T06:59:00Z', false], // 07:59 CET
    ['2026-03-28T07:00:00Z', true], // 08:00 CET
    ['2026-03-30T05:59:00Z', false], // 07:59 CEST
    ['2026-03-30T06:00:00Z', true], // 08:00 CEST
    // And falls back 2026-10-25 03:00 → 02:00.
    ['2026-10-25T06:59:00Z', false], // 07:59 CET
    ['2026-10-25T07:00:00Z', true], // 08:00 CET
  ])('Berlin 08:00-22:00 across DST: %s → %s', (iso, expected) => {
    expect(isWithinActiveHours(at(iso), { start: '08:00', end: '22:00', timeZone: 'Europe/Berlin' })).toBe(
      expected,
    );
  });

  it('a midnight-spanning window on the night New York springs forward', () => {
    // 2026-03-08 02:00 EST → 03:00 EDT. The window 01:30-03:30 holds 01:30-01:59 and 03:00-03:29.
    const w = { start: '01:30', end: '03:30', timeZone: 'America/New_York' };
    expect(isWithinActiveHours(at('2026-03-08T06:29:00Z'), w)).toBe(false); // 01:29 EST
    expect(isWithinActiveHours(at('2026-03-08T06:30:00Z'), w)).toBe(true); // 01:30 EST
    expect(isWithinActiveHours(at('2026-03-08T07:00:00Z'), w)).toBe(true); // 03:00 EDT
    expect(isWithinActiveHours(at('2026-03-08T07:30:00Z'), w)).toBe(false); // 03:30 EDT
  });

  it('an empty window is never active', () => {
    expect(isWithinActiveHours(at('2026-07-01T12:00:00Z'), { start: '08:00', end: '08:00' })).toBe(false);
  });
});

describe('helpers', () => {
  it.each([
    ['00:00', 0],
    ['08:30', 510],
    ['23:59', 1439],
    ['24:00', 1440],
    ['24:30', undefined],
    ['7:00', undefined],
    ['12:60', undefined],
  ])('parseClock(%s) = %s', (text, expected) => {
    expect(parseClock(text)).toBe(expected);
  });

  it.each([
    ['Europe/Berlin', true],
    ['America/Argentina/Buenos_Aires', true],
    ['UTC', true],
    ['Mars/Olympus', false],
    ['', false],
    ['+02:00', false],
  ])('isValidTimeZone(%j) = %s', (tz, expected) => {
    expect(isValidTimeZone(tz)).toBe(expected);
  });

  it('localMinutes reads the wall clock of the zone', () => {
    expect(localMinutes(at('2026-07-01T23:30:00Z'), 'Asia/Tokyo')).toBe(8 * 60 + 30);
    expect(localMinutes(at('2026-07-01T23:30:00Z'), 'UTC')).toBe(23 * 60 + 30);
  });

  it.each([
    [{ start: '08:00', end: '22:00', timeZone: 'Europe/Berlin' }, undefined],
    [{ start: '08:00', end: '08:00' }, 'start and end are the same, so the window is empty'],
    [{ start: '8am', end: '22:00' }, 'start must be HH:MM'],
    [
      { start: '08:00', end: '22:00', timeZone: 'Berlin' },
      'unknown time zone "Berlin" (use an IANA name like Europe/Berlin)',
    ],
  ])('activeHoursProblem(%j)', (hours, expected) => {
    expect(activeHoursProblem(hours)).toBe(expected);
  });
});

import { describe, expect, it } from 'vitest';
import { formatDuration, parseInterval } from '../../src/core/interval.js';

describe('parseInterval', () => {
  it.each([
    ['15m', 15 * 60_000],
    ['2h', 2 * 3_600_000],
    ['1d', 86_400_000],
    ['90s', 90_000],
    ['60s', 60_000],
    [' 15 m ', 15 * 60_000],
    ['2H', 2 * 3_600_000],
  ])('%j → %d ms', (text, ms) => {
    expect(parseInterval(text)).toEqual({ ok: true, ms });
  });

  it.each([
    ['15', 'not an interval'],
    ['m', 'not an interval'],
    ['1h30m', 'not an interval'],
    ['-5m', 'not an interval'],
    ['1.5h', 'not an interval'],
    ['15 minutes', 'not an interval'],
    ['0m', 'shorter than the minimum'],
    ['30s', 'shorter than the minimum'],
    ['400d', 'longer than the maximum'],
  ])('%j is refused (%s)', (text, why) => {
    const r = parseInterval(text);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toContain(why);
  });
});

describe('formatDuration', () => {
  it.each([
    [0, '0 s'],
    [45_000, '45 s'],
    [3 * 60_000, '3 min'],
    [3_900_000, '1 h 5 min'],
    [2 * 86_400_000 + 3_600_000 + 60_000, '2 d 1 h'],
  ])('%d ms → %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});

import { describe, expect, it } from 'vitest';
import { coordinate, placeText } from '../../src/core/shared-place.js';

describe('coordinate', () => {
  it.each([
    [52.516275, 90, '52.516275'],
    [-33, 90, '-33'],
    [0, 90, '0'],
    ['13.4050', 180, '13.405'],
    [' -122.4194 ', 180, '-122.4194'],
    [1.23456789, 90, '1.234568'],
    [90.0001, 90, undefined],
    [-181, 180, undefined],
    [Number.NaN, 90, undefined],
    [Number.POSITIVE_INFINITY, 180, undefined],
    ['', 90, undefined],
    ['12abc', 90, undefined],
    ['0x10', 90, undefined],
    ['1e1', 90, undefined],
    ['+45.5', 90, '45.5'],
    [null, 90, undefined],
  ])('%j within ±%d → %s', (v, limit, out) => expect(coordinate(v, limit)).toBe(out));
});

describe('placeText', () => {
  it.each([
    [['a location', 1, 2, []], '[shared a location: 1, 2]'],
    [
      ['a live location', '48.8584', '2.2945', ['on my way']],
      '[shared a live location: 48.8584, 2.2945 — on my way]',
    ],
    [['a location', 1, 2, ['', null, 'Cafe']], '[shared a location: 1, 2 — Cafe]'],
    [['a location', 200, 2, ['Cafe']], '[shared a location without coordinates: Cafe]'],
    [['a location', undefined, undefined, []], undefined],
    [['a location', 1, 2, ['x\u202e\nmore']], '[shared a location: 1, 2 — x more]'],
  ] as const)('%j → %s', ([what, lat, lon, notes], out) =>
    expect(placeText(what, lat, lon, notes)).toBe(out),
  );

  it('cuts a long name', () => {
    expect(placeText('a location', 1, 2, ['n'.repeat(10_000)])?.length).toBeLessThan(340);
  });
});

import { describe, expect, it } from 'vitest';
import { dateFormat } from '../../src/core/date-format.js';

describe('dateFormat', () => {
  it('hands back one formatter per locale, options and zone', () => {
    const a = dateFormat('en-GB', { hour: '2-digit', timeZone: 'UTC' });
    expect(dateFormat('en-GB', { hour: '2-digit', timeZone: 'UTC' })).toBe(a);
    expect(dateFormat('en-GB', { hour: '2-digit', timeZone: 'Asia/Tokyo' })).not.toBe(a);
    expect(dateFormat('en-US', { hour: '2-digit', timeZone: 'UTC' })).not.toBe(a);
    expect(
      dateFormat('en-GB', { hour: '2-digit', timeZone: 'Asia/Tokyo' }).format(Date.UTC(2026, 0, 1, 0)),
    ).toBe('09');
  });
});

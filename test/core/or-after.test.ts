// A promise's outcome or a fallback after a bound: whichever comes first, and no timer left behind.
import { describe, expect, it } from 'vitest';
import { orAfter } from '../../src/core/or-after.js';

describe('orAfter', () => {
  it.each([
    ['settles first', Promise.resolve('done'), 'done'],
    ['settles later than the bound', new Promise((r) => setTimeout(() => r('done'), 500)), 'late'],
    ['never settles', new Promise(() => {}), 'late'],
  ] as const)('a promise that %s', async (_, p, want) => {
    expect(await orAfter(p as Promise<unknown>, 30, 'late')).toBe(want);
  });

  it('passes a rejection through', async () => {
    await expect(orAfter(Promise.reject(new Error('boom')), 1000, 'late')).rejects.toThrow('boom');
  });

  it('clears its timer once the promise wins', async () => {
    const before = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    await orAfter(Promise.resolve(1), 60_000, 0);
    expect(process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length).toBe(before);
  });
});

// The chat's last runner keeps it while it lives, for a bounded while (queue/lease-affinity.ts).
import { describe, expect, it } from 'vitest';
import { type AffinityInput, AffinityWait, leaseAffinity } from '../../src/queue/lease-affinity.js';

const base: AffinityInput = {
  me: 'b',
  last: { holder: 'a', lastSeen: 10_000 },
  now: 10_500,
  aliveMs: 2_000,
  waitingSince: undefined,
  boundMs: 3_000,
};

describe('leaseAffinity', () => {
  const rows: [string, Partial<AffinityInput>, 'take' | 'wait'][] = [
    ['never released by anyone: take', { last: undefined }, 'take'],
    ['last run here: take', { last: { holder: 'b', lastSeen: 10_000 } }, 'take'],
    ['last runner alive, first try: wait', {}, 'wait'],
    ['last runner alive, waited less than the bound: wait', { waitingSince: 8_000 }, 'wait'],
    ['last runner alive, waited the bound: take', { waitingSince: 7_500 }, 'take'],
    ['last runner no longer registered: take', { last: { holder: 'a', lastSeen: undefined } }, 'take'],
    ['last runner not seen for two renewals: take', { last: { holder: 'a', lastSeen: 8_000 } }, 'take'],
    ['last runner seen just within: wait', { last: { holder: 'a', lastSeen: 8_500 } }, 'wait'],
  ];
  it.each(rows)('%s', (_name, over, want) => {
    expect(leaseAffinity({ ...base, ...over })).toBe(want);
  });
});

describe('AffinityWait', () => {
  it('waits from the first try until the bound, then lets the chat be taken; done starts anew', async () => {
    const last = { holder: 'a', lastSeen: 0 };
    let now = 0;
    const wait = new AffinityWait(
      { lastHolder: async () => ({ ...last, lastSeen: now }) },
      'b',
      3_000,
      2_000,
    );
    expect(await wait.until('console:x', now)).toBe(3_000);
    now = 2_000;
    expect(await wait.until('console:x', now)).toBe(3_000);
    now = 3_000;
    expect(await wait.until('console:x', now)).toBeUndefined();
    wait.done('console:x');
    expect(await wait.until('console:x', now)).toBe(6_000);
  });
});

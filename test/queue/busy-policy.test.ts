// The busy policy as a table: what an arriving message does, and what the next run takes.
import { describe, expect, it } from 'vitest';
import { chooseRun, onArrival, runLimit, type WhileBusy } from '../../src/queue/busy-policy.js';

describe('onArrival', () => {
  it.each([
    ['collect', false, 'start'],
    ['followup', false, 'start'],
    ['interrupt', false, 'start'],
    ['collect', true, 'wait'],
    ['followup', true, 'wait'],
    ['interrupt', true, 'interrupt'],
  ] as [WhileBusy, boolean, string][])('%s, busy %s → %s', (policy, busy, out) => {
    expect(onArrival(policy, busy)).toBe(out);
  });
});

describe('runLimit', () => {
  it.each([
    ['followup', 20, 1],
    ['collect', 20, 20],
    ['interrupt', 7, 7],
  ] as [WhileBusy, number, number][])('%s with a cap of %i looks at %i', (policy, cap, out) => {
    expect(runLimit(policy, cap)).toBe(out);
  });
});

const msg = (text: string, n = 0) => ({ senderId: 'u', text, media: [], isGroup: false, sentAt: n });

describe('chooseRun', () => {
  it.each([
    ['one short message runs', [msg('hi')], 1000, { type: 'run', count: 1 }],
    ['all that fit run together', [msg('a'), msg('b'), msg('c')], 1000, { type: 'run', count: 3 }],
    [
      'the rest wait for the next run',
      [msg('a'.repeat(300)), msg('b'.repeat(300)), msg('c'.repeat(300))],
      700,
      { type: 'run', count: 2 },
    ],
    [
      'a first message too long alone is taken alone, to be refused',
      [msg('x'.repeat(2000)), msg('ok')],
      1000,
      { type: 'too_long', count: 1, chars: 2000 },
    ],
  ] as const)('%s', (_name, waiting, max, out) => {
    expect(chooseRun(waiting, max)).toEqual(out);
  });
});

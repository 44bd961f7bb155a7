// A channel's stop, bounded: in time, failed (still counted as stopped, and logged), or late.
import { describe, expect, it } from 'vitest';
import { stopWithin } from '../../src/channels/stop-within.js';
import type { Channel } from '../../src/channels/types.js';
import { memoryLog } from '../queue/helpers.js';

const channel = (stop: () => Promise<void>): Channel =>
  ({
    name: 'slack',
    textLimit: 100,
    start: async () => {},
    stop,
    send: async () => ({ ok: true }),
  }) as unknown as Channel;

describe('stopWithin', () => {
  it.each([
    ['a stop that ends', () => Promise.resolve(), 'stopped', undefined],
    ['a stop that fails', () => Promise.reject(new Error('boom')), 'stopped', 'channel stop failed'],
    ['a stop that never ends', () => new Promise<void>(() => {}), 'late', 'channel did not stop in time'],
  ] as const)('%s', async (_, stop, outcome, said) => {
    const { log, lines } = memoryLog();
    expect(await stopWithin(channel(stop), 50, log)).toBe(outcome);
    const told = lines.filter((l) => String(l.msg).startsWith(said ?? '\0'));
    expect(lines).toHaveLength(said ? 1 : 0);
    if (said) expect(told).toEqual([expect.objectContaining({ channel: 'slack' })]);
  });
});

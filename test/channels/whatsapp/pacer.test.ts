import { describe, expect, it } from 'vitest';
import { Pacer } from '../../../src/channels/whatsapp/pacer.js';

describe('Pacer', () => {
  it('runs sends one at a time with at least the minimum gap plus jitter between them', async () => {
    let clock = 1000;
    const slept: number[] = [];
    const order: string[] = [];
    const pacer = new Pacer({
      minGapMs: 400,
      jitterMs: 600,
      random: () => 0.5,
      now: () => clock,
      sleep: async (ms) => {
        slept.push(ms);
        clock += ms;
      },
    });
    const send = (name: string, takes: number) =>
      pacer.run(async () => {
        order.push(`start ${name}`);
        clock += takes;
        order.push(`end ${name}`);
        return name;
      });
    const results = await Promise.all([send('a', 50), send('b', 50), send('c', 1000)]);
    expect(results).toEqual(['a', 'b', 'c']);
    expect(order).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
    expect(slept).toEqual([700, 700]);
    clock += 5000; // long after the last send: no wait
    await send('d', 1);
    expect(slept).toEqual([700, 700]);
  });

  it('a failed send does not block the next one', async () => {
    const pacer = new Pacer({ sleep: async () => {} });
    await expect(pacer.run(async () => Promise.reject(new Error('x')))).rejects.toThrow('x');
    await expect(pacer.run(async () => 'ok')).resolves.toBe('ok');
  });
});

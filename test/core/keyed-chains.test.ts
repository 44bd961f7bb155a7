// Tasks of one key run one after another, keys side by side; a failure does not stop the queue.
import { describe, expect, it } from 'vitest';
import { KeyedChains } from '../../src/core/keyed-chains.js';

/** A task that ends when the test says so, noting when it started and ended. */
function gate(log: string[], name: string) {
  let open: () => void = () => {};
  const opened = new Promise<void>((r) => {
    open = r;
  });
  return {
    open: () => open(),
    task: async () => {
      log.push(`start ${name}`);
      await opened;
      log.push(`end ${name}`);
      return name;
    },
  };
}

/** Lets every queued promise reaction run (no timer: bounded by the tasks' own awaits). */
const flush = async (ticks = 10) => {
  for (let i = 0; i < ticks; i++) await Promise.resolve();
};

describe('KeyedChains', () => {
  it('runs one key in order, another key at once', async () => {
    const chains = new KeyedChains();
    const log: string[] = [];
    const a1 = gate(log, 'a1');
    const a2 = gate(log, 'a2');
    const b1 = gate(log, 'b1');
    const r1 = chains.run('a', a1.task);
    const r2 = chains.run('a', a2.task);
    const r3 = chains.run('b', b1.task);
    await flush();
    expect(log).toEqual(['start a1', 'start b1']);
    a2.open(); // a2 may not start before a1 ended, open or not
    await flush();
    expect(log).toEqual(['start a1', 'start b1']);
    a1.open();
    b1.open();
    expect(await Promise.all([r1, r2, r3])).toEqual(['a1', 'a2', 'b1']);
    expect(log.indexOf('end a1')).toBeLessThan(log.indexOf('start a2'));
  });

  it('a failed task rejects its own promise and the next one still runs', async () => {
    const chains = new KeyedChains();
    const failed = chains.run('a', async () => {
      throw new Error('boom');
    });
    const next = chains.run('a', async () => 'after');
    await expect(failed).rejects.toThrow('boom');
    await expect(next).resolves.toBe('after');
  });

  it('forgets a key once its queue is empty, and drain waits for tasks queued meanwhile', async () => {
    const chains = new KeyedChains();
    const log: string[] = [];
    const a = gate(log, 'a');
    const b = gate(log, 'b');
    void chains.run('a', async () => {
      await a.task();
      void chains.run('b', b.task);
    });
    expect(chains.size).toBe(1);
    let drained = false;
    const d = chains.drain().then(() => {
      drained = true;
    });
    a.open();
    await flush();
    expect(drained).toBe(false);
    expect(log).toContain('start b');
    b.open();
    // Checked before awaiting the drain: a key never forgotten would keep it waiting for ever.
    await flush(50);
    expect(chains.size).toBe(0);
    await d;
    expect(log).toEqual(['start a', 'end a', 'start b', 'end b']);
  });
});

import { describe, expect, it } from 'vitest';
import { answering } from '../../src/core/answering.js';
import { spawnTurn } from '../../src/runner/spawn-turn.js';

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a run waits for its turn to start its process', () => {
  it('after the I/O already waiting, and one start per event-loop iteration', async () => {
    const order: string[] = [];
    const first = spawnTurn().then(() => {
      order.push('start 1');
      // Work that arrives while the first process starts is handled before the second one starts.
      setImmediate(() => order.push('webhook read during start 1'));
    });
    const second = spawnTurn().then(() => order.push('start 2'));
    setImmediate(() => order.push('webhook already waiting'));
    await Promise.all([first, second]);
    expect(order).toEqual(['webhook already waiting', 'start 1', 'webhook read during start 1', 'start 2']);
  });

  it('after every webhook in hand is answered, and the webhooks have been quiet a moment', async () => {
    // The start may go ahead anyway after 100 ms (the bound of the next test): an attempt whose own
    // pauses took that long on a loaded machine proves nothing, and is made again.
    for (let attempt = 1; ; attempt++) {
      const t0 = performance.now();
      const order: string[] = [];
      const a = answering();
      const b = answering();
      const start = spawnTurn().then(() => order.push('start'));
      await pause(20);
      order.push('answer a');
      a();
      await pause(20);
      // A sender's next webhook arrives right after its answer: the start waits for it too.
      const c = answering();
      order.push('answer b');
      b();
      await pause(2);
      order.push('answer c');
      c();
      const took = performance.now() - t0;
      await start;
      if (took >= 90 && attempt < 50) continue;
      expect(order).toEqual(['answer a', 'answer b', 'answer c', 'start']);
      return;
    }
  });

  it('is held at most a bounded time by a webhook that is never answered', async () => {
    const stuck = answering();
    try {
      const t0 = performance.now();
      await spawnTurn();
      const waited = performance.now() - t0;
      expect(waited).toBeGreaterThanOrEqual(90);
      expect(waited).toBeLessThan(5_000);
    } finally {
      stuck();
    }
  });
});

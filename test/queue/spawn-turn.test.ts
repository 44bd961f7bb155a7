import { describe, expect, it } from 'vitest';
import { spawnTurn } from '../../src/queue/spawn-turn.js';

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
});

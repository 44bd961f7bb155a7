// A kick that comes while the chat's drain is ending (it has just looked and found nothing) must not
// be lost: the row written just then would otherwise wait for some later kick. Answers to an agent's
// question come quickly one after another and hit exactly this.
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatKey } from '../../src/core/types.js';
import { Deliverer } from '../../src/queue/delivery.js';
import type { QueueStore } from '../../src/store/queue-ops.js';
import { enqueueOutbound } from '../../src/store/sqlite/outbox.js';
import { sqliteQueueStore } from '../../src/store/sqlite/queue-sqlite.js';
import { tempDb } from '../store/helpers.js';
import { FakeChannel, memoryLog } from './helpers.js';

let t: ReturnType<typeof tempDb>;
afterEach(() => t?.cleanup());

describe('Deliverer.kick', () => {
  it('a row written and kicked right after the drain found nothing is still sent', async () => {
    t = tempDb();
    const chat = 'console:local' as ChatKey;
    const channel = new FakeChannel('console');
    const real = sqliteQueueStore(t.db);
    let d: Deliverer | undefined;
    let injected = false;
    // The store says "nothing left", and at that very moment another reply is written and kicked.
    const store: QueueStore = {
      ...real,
      nextUnsent: async (c) => {
        const row = await real.nextUnsent(c);
        if (!row && !injected) {
          injected = true;
          enqueueOutbound(t.db, chat, 'second', [{ type: 'text', text: 'two' }], 2);
          d?.kick(chat);
        }
        return row;
      },
    };
    d = new Deliverer(store, new Map([['console', channel]]), memoryLog().log, () => 1, {
      retryForMs: 60_000,
      backoffMs: () => 0,
      waitMs: 0,
    });
    enqueueOutbound(t.db, chat, 'first', [{ type: 'text', text: 'one' }], 1);
    d.kick(chat);
    // The second row's drain may start after the first has gone idle: wait for its send (bounded).
    const until = Date.now() + 10_000;
    while (channel.texts().length < 2 && Date.now() < until) {
      await d.idle();
      await new Promise((r) => setImmediate(r));
    }
    await d.idle();
    expect(channel.texts()).toEqual(['one', 'two']);
  });
});

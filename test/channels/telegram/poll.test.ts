import { describe, expect, it } from 'vitest';
import type { BotApi } from '../../../src/channels/telegram/api.js';
import { Poller } from '../../../src/channels/telegram/poll.js';
import { memoryStateStore, TelegramState } from '../../../src/channels/telegram/state.js';

describe('Poller (a server that repeats itself)', () => {
  it('skips updates below the offset, passes over an update that throws, and persists the offset', async () => {
    const state = new TelegramState(memoryStateStore());
    await state.setOffset(10);
    const offsets: number[] = [];
    const handled: number[] = [];
    const errors: string[] = [];
    let poller: Poller | undefined;
    // The call after the last batch: by then both batches were handled (the loop handles a batch
    // before it asks again), however long that took on a loaded machine.
    let drained!: () => void;
    const allAsked = new Promise<void>((resolve) => {
      drained = resolve;
    });
    const batches = [
      [{ update_id: 8 }, { update_id: 10 }, { update_id: 11 }],
      [{ update_id: 11 }, { update_id: 12 }],
    ];
    const api = {
      getUpdates: async (p: { offset: number }) => {
        offsets.push(p.offset);
        const next = batches.shift();
        if (!next) {
          void poller!.stop();
          drained();
          return [];
        }
        return next;
      },
    } as unknown as BotApi;
    poller = new Poller({
      api,
      state,
      handle: async (u) => {
        // A poison update: the loop goes on past it.
        if (u.update_id === 11 && !handled.includes(-11)) {
          handled.push(-11);
          throw new Error('boom');
        }
        handled.push(u.update_id);
      },
      onHandleError: (err) => errors.push((err as Error).message),
      onError: () => {},
      onOk: () => {},
    });
    poller.start();
    await allAsked;
    await poller.stop();
    expect(handled).toEqual([10, -11, 12]);
    expect(errors).toEqual(['boom']);
    expect(offsets.slice(0, 3)).toEqual([10, 12, 13]);
    expect(await state.offset()).toBe(13);
  });
});

import { describe, expect, it } from 'vitest';
import type { BotApi } from '../../../src/channels/telegram/api.js';
import { Poller } from '../../../src/channels/telegram/poll.js';
import { memoryStateStore, TelegramState } from '../../../src/channels/telegram/state.js';

describe('Poller (a server that repeats itself)', () => {
  it('skips updates below the offset, moves the offset only past handled updates, and persists it', async () => {
    const state = new TelegramState(memoryStateStore());
    await state.setOffset(10);
    const offsets: number[] = [];
    const handled: number[] = [];
    let poller: Poller | undefined;
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
          return [];
        }
        return next;
      },
    } as unknown as BotApi;
    poller = new Poller({
      api,
      state,
      handle: async (u) => {
        handled.push(u.update_id);
      },
      onError: () => {},
      onOk: () => {},
    });
    poller.start();
    await new Promise((r) => setTimeout(r, 50));
    await poller.stop();
    expect(handled).toEqual([10, 11, 12]);
    expect(offsets.slice(0, 3)).toEqual([10, 12, 13]);
    expect(await state.offset()).toBe(13);
  });
});

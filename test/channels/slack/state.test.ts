// The handled-envelope list in the channel's state: bounded, and two envelopes marked at once never
// lose each other's ids (their writes go one after another). Real SQLite through the state port.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SlackState } from '../../../src/channels/slack/state.js';
import { memoryStateStore } from '../../../src/channels/telegram/state.js';
import type { ChannelStateStore } from '../../../src/store/channel-state.js';
import { channelStateStore } from '../../../src/store/sqlite/channel-state.js';
import { openDb } from '../../../src/store/sqlite/db.js';
import { QUEUE_MIGRATIONS } from '../../../src/store/sqlite/queue-schema.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

const open = () => {
  dir ??= mkdtempSync(join(tmpdir(), 'aw-slack-state-'));
  return openDb(join(dir, 'agentwire.db'), QUEUE_MIGRATIONS);
};

describe('SlackState handled envelopes', () => {
  it('keeps concurrent marks, survives a reopen, and forgets the oldest past its bound', async () => {
    const db = open();
    const s = new SlackState(channelStateStore(db, 'slack'));
    await Promise.all(Array.from({ length: 50 }, (_, i) => s.markHandled([`e:${i}`, `m:${i}`])));
    db.close();
    const db2 = open();
    const again = new SlackState(channelStateStore(db2, 'slack'));
    for (let i = 0; i < 50; i++) expect(await again.wasHandled([`e:${i}`])).toBe(true);
    expect(await again.wasHandled(['e:never'])).toBe(false);
    for (let i = 50; i < 600; i++) await again.markHandled([`e:${i}`, `m:${i}`]);
    expect(await again.wasHandled(['e:0'])).toBe(false);
    expect(await again.wasHandled(['m:599'])).toBe(true);
    expect((await channelStateStore(db2, 'slack').get<string[]>('handled'))?.length).toBe(1000);
    db2.close();
  });

  it('loses no id when the store answers later (an engine with an asynchronous client)', async () => {
    const mem = memoryStateStore();
    const later = () => new Promise((r) => setImmediate(r));
    const slow: ChannelStateStore = {
      get: async <T>(k: string) => {
        await later();
        return mem.get<T>(k);
      },
      set: async (k, v) => {
        await later();
        await mem.set(k, v);
      },
      seen: (k) => mem.seen(k),
    };
    const s = new SlackState(slow);
    await Promise.all(Array.from({ length: 20 }, (_, i) => s.markHandled([`e:${i}`])));
    const fresh = new SlackState(mem);
    for (let i = 0; i < 20; i++) expect(await fresh.wasHandled([`e:${i}`]), `e:${i}`).toBe(true);
  });

  it('lists the conversations whose sends stopped, and forgets one that spoke again', async () => {
    const db = open();
    const s = new SlackState(channelStateStore(db, 'slack'));
    await s.setStopped('C0CHAN001', { error: 'not_in_channel', at: 1 });
    await s.setStopped('C0CHAN002', { error: 'is_archived', at: 2 });
    expect(await s.stoppedList()).toEqual(['C0CHAN001', 'C0CHAN002']);
    await s.setStopped('C0CHAN001', undefined);
    expect(await s.stoppedList()).toEqual(['C0CHAN002']);
    expect(await s.stopped('C0CHAN001')).toBeUndefined();
    db.close();
  });
});

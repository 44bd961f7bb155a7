// A fenced "chunk sent" write is one statement on SQLite when the fence holds; every other case must
// still be refused (and leave the chunk unsent) exactly as the transaction with its lease read was.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatKey } from '../../src/core/types.js';
import type { Fence } from '../../src/store/ownership.js';
import { openSqliteStore } from '../../src/store/sqlite/open.js';
import type { Store } from '../../src/store/store.js';

const A: ChatKey = 'console:a';
const B: ChatKey = 'console:b';
const NOW = 1_700_000_000_000;
const TTL = 60_000;

let dir: string | undefined;
let store: Store | undefined;
afterEach(async () => {
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  store = undefined;
  dir = undefined;
});

async function open(): Promise<Store> {
  dir = mkdtempSync(join(tmpdir(), 'aw-fenced-send-'));
  store = await openSqliteStore(join(dir, 'agentwire.db'));
  return store;
}

async function lease(s: Store, chat: ChatKey, holder: string, now = NOW): Promise<Fence> {
  const r = await s.ownership.acquireChat(chat, holder, now, TTL);
  if (r.type !== 'granted') throw new Error(`no lease of ${chat} for ${holder}`);
  return r.fence;
}

async function chunkOf(s: Store, chat: ChatKey, fence: Fence): Promise<number> {
  const put = await s.queue.enqueueReply(chat, `k:${chat}`, [{ type: 'text', text: 'hi' }], NOW, fence);
  expect(put.ok).toBe(true);
  const row = await s.queue.nextUnsent(chat);
  if (!row) throw new Error('no chunk');
  return row.id;
}

describe('markChunkSent under a fence (SQLite)', () => {
  it("marks the chunk sent, with its provider id, while the fence is its chat's lease", async () => {
    const s = await open();
    const fa = await lease(s, A, 'p1');
    const id = await chunkOf(s, A, fa);
    expect(await s.queue.markChunkSent(id, NOW + 1, 'SM1', fa)).toEqual({ ok: true, value: undefined });
    expect(await s.queue.nextUnsent(A)).toBeUndefined();
    expect(await s.queue.sentProviderIds(A, NOW)).toEqual(['SM1']);
  });

  const refused: [string, (s: Store, fa: Fence, id: number) => Promise<[Fence, number]>][] = [
    [
      'the lease moved to another holder (higher epoch)',
      async (s, fa, id) => {
        await s.ownership.releaseChat(fa);
        await lease(s, A, 'p2');
        return [fa, id];
      },
    ],
    ["the fence is another chat's lease, held", async (s, _fa, id) => [await lease(s, B, 'p1'), id]],
    ['no such chunk', async (_s, fa, id) => [fa, id + 1000]],
  ];
  it.each(refused)('refuses the write when %s, and the chunk stays unsent', async (_name, arrange) => {
    const s = await open();
    const fa = await lease(s, A, 'p1');
    const id = await chunkOf(s, A, fa);
    const [fence, target] = await arrange(s, fa, id);
    expect(await s.queue.markChunkSent(target, NOW + 1, 'SM1', fence)).toMatchObject({
      ok: false,
      reason: 'conflict',
    });
    expect((await s.queue.nextUnsent(A))?.id).toBe(id);
    expect(await s.queue.sentProviderIds(A, NOW)).toEqual([]);
  });
});

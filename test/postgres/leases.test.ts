// Several processes on one PostgreSQL database (two stores: two pools, as two relays would have):
// racing for one chat, exactly one wins, whether the race is for the chat's lease or its next run;
// and once a chat's lease moved, every run-side write of the old holder is refused and writes nothing.
import { afterEach, describe, expect, it } from 'vitest';
import type { Written } from '../../src/store/errors.js';
import type { Store } from '../../src/store/open.js';
import type { Fence } from '../../src/store/ownership.js';
import { openPostgresStore } from '../../src/store/postgres/store.js';
import { inbound } from '../store/helpers.js';
import { freshDatabase } from '../support/postgres-db.js';

const CHAT = 'console:local' as const;
const NOW = 1_700_000_000_000;
const text = (t: string) => [{ type: 'text' as const, text: t }];

const opened: Store[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close().catch(() => undefined);
});
async function twoProcesses(): Promise<[Store, Store]> {
  const url = await freshDatabase();
  const a = await openPostgresStore(url);
  opened.push(a);
  const b = await openPostgresStore(url);
  opened.push(b);
  return [a, b];
}

function value<T>(w: Written<T>): T {
  if (!w.ok) throw new Error(`refused: ${w.message}`);
  return w.value;
}

async function granted(s: Store, holder: string, ttlMs: number): Promise<Fence> {
  const out = await s.ownership.acquireChat(CHAT, holder, NOW, ttlMs);
  if (out.type !== 'granted') throw new Error(`held by ${out.holder}`);
  return out.fence;
}

describe('two processes on one PostgreSQL database', () => {
  it('racing for one chat: exactly one is granted its lease, the other learns who holds it', async () => {
    const [a, b] = await twoProcesses();
    for (let round = 0; round < 20; round++) {
      const chat = `console:race-${round}` as const;
      const [x, y] = await Promise.all([
        a.ownership.acquireChat(chat, 'A', NOW, 60_000),
        b.ownership.acquireChat(chat, 'B', NOW, 60_000),
      ]);
      const winners = [x, y].filter((o) => o.type === 'granted');
      expect(winners).toHaveLength(1);
      const loser = [x, y].find((o) => o.type === 'held');
      const winner = winners[0]?.type === 'granted' ? winners[0].fence.holder : '';
      expect(loser).toMatchObject({ type: 'held', holder: winner });
    }
  });

  it('racing to claim one chat: exactly one takes each message', async () => {
    const [a, b] = await twoProcesses();
    for (let round = 0; round < 20; round++) {
      value(await a.queue.acceptInbound(inbound({ messageId: `m${round}` }), { now: NOW, maxPending: 50 }));
      const claim = (s: Store) => s.queue.claimNextRun(CHAT, 10, NOW, (w) => ({ count: w.length }));
      const [x, y] = (await Promise.all([claim(a), claim(b)])).map(value);
      const taken = [x, y].filter((c) => c !== undefined);
      expect(taken).toHaveLength(1);
      expect(taken[0]?.rows.map((r) => r.messageId)).toEqual([`m${round}`]);
    }
    expect((await a.queue.unfinished(CHAT)).map((r) => r.tries)).toEqual(Array(20).fill(1));
  });

  it('after the lease moved, the old holder can neither finish, requeue, reply (to its chat or another), send nor keep a session', async () => {
    const [a, b] = await twoProcesses();
    value(await a.queue.acceptInbound(inbound({ messageId: 'x' }), { now: NOW, maxPending: 5 }));
    value(await a.queue.enqueueReply(CHAT, 'progress', text('working'), NOW));
    const old = await granted(a, 'A', 300);
    const run = value(await a.queue.claimNextRun(CHAT, 10, NOW, () => ({ count: 1 }), old));
    const ids = run?.rows.map((r) => r.id) ?? [];
    expect(run?.rows[0]).toMatchObject({ owner: 'A', leaseEpoch: old.epoch });

    // A pauses past its lease; B takes the chat over once the database's clock says it ran out.
    let next: Fence | undefined;
    for (const until = Date.now() + 10_000; !next && Date.now() < until; ) {
      const out = await b.ownership.acquireChat(CHAT, 'B', NOW, 60_000);
      if (out.type === 'granted') next = out.fence;
    }
    expect(next).toEqual({ chat: CHAT, holder: 'B', epoch: old.epoch + 1 });

    const chunk = await a.queue.nextUnsent(CHAT);
    const session = {
      scope: CHAT,
      agent: 'claude' as const,
      id: 's-old',
      generation: 0,
      confirmed: true,
      touch: true,
    };
    const refusals = await Promise.all([
      a.queue.finishRun({
        chat: CHAT,
        ids,
        now: NOW,
        status: 'done',
        reply: { key: 'in:x', items: text('late') },
        fence: old,
      }),
      a.queue.requeueRun(ids, NOW, undefined, old),
      a.queue.enqueueReply(CHAT, 'late-progress', text('still here'), NOW, old),
      a.queue.enqueueForChat('console:other', 'late-to', text('elsewhere'), NOW, old),
      a.queue.markChunkSent(chunk?.id ?? 0, NOW, 'provider-1', old),
      a.queue.keepSession(session, NOW, old),
      a.queue.claimNextRun(CHAT, 10, NOW, () => ({ count: 1 }), old),
    ]);
    for (const r of refusals) expect(r).toMatchObject({ ok: false, reason: 'conflict', retryable: false });
    expect(await a.ownership.renewChat(old, NOW, 60_000)).toBe(false);

    // Nothing of A's reached the store: the message still runs, no reply, the chunk unsent, no session.
    expect(await b.repliesFor('in:x')).toEqual([]);
    expect(await b.repliesFor('late-progress')).toEqual([]);
    expect(await b.repliesFor('late-to')).toEqual([]);
    expect(await b.queue.message(ids[0] ?? 0)).toMatchObject({ status: 'running', tries: 1 });
    expect(await b.queue.nextUnsent(CHAT)).toMatchObject({ id: chunk?.id, status: 'pending' });
    expect((await b.queue.session(CHAT, 'claude')).row).toBeUndefined();

    // The new holder's writes go through.
    value(
      await b.queue.finishRun({
        chat: CHAT,
        ids,
        now: NOW,
        status: 'done',
        reply: { key: 'in:x', items: text('ok') },
        fence: next,
      }),
    );
    expect(await b.repliesFor('in:x')).toEqual([{ status: 'pending', error: undefined }]);
    expect(await b.queue.message(ids[0] ?? 0)).toMatchObject({ status: 'done' });
  });

  it("times leases by the database's clock: a caller's clock far ahead takes no live lease", async () => {
    const [a, b] = await twoProcesses();
    const fence = await granted(a, 'A', 60_000);
    const tomorrow = Date.now() + 86_400_000;
    expect(await b.ownership.acquireChat(CHAT, 'B', tomorrow, 60_000)).toMatchObject({
      type: 'held',
      holder: 'A',
    });
    expect(await b.ownership.leasedByOthers('B', tomorrow)).toEqual([CHAT]);
    value(await a.queue.acceptInbound(inbound({ messageId: 'o' }), { now: NOW, maxPending: 5 }));
    expect(await b.ownership.orphans(tomorrow)).toEqual([]);
    await a.ownership.releaseChat(fence);
    expect(await b.ownership.orphans(NOW)).toEqual([{ chat: CHAT, epoch: 1 }]);
    expect(await b.ownership.acquireChat(CHAT, 'B', NOW, 60_000)).toMatchObject({
      type: 'granted',
      fence: { epoch: 2 },
    });
  });
});

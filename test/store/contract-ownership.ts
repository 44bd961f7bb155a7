// The store contract, continued: the ownership port (processes, chat and leader leases with their
// epochs, notifications), over the ports only (run by storeContract, every engine). Lease lengths are
// long here: an engine may time leases by its own clock (PostgreSQL uses the database's), so expiry
// is each engine's own test, and these hold whichever clock it uses.
import { describe, expect, it } from 'vitest';
import { StoreError } from '../../src/store/errors.js';
import type { Store } from '../../src/store/open.js';
import { inbound } from './helpers.js';

const CHAT = 'console:local' as const;
const NOW = 1_700_000_000_000;
const TTL = 600_000;
const proc = (role: string, startedAt: number) => ({ host: 'h', pid: 42, role, startedAt, fingerprint: 'f' });

export function ownershipContract(fresh: () => Promise<Store>): void {
  describe('ownership', () => {
    it('a chat lease: renewed by its holder at the same epoch, refused to another, the next epoch after release', async () => {
      const s = await fresh();
      const o = s.ownership;
      const first = await o.acquireChat(CHAT, 'A', NOW, TTL);
      expect(first).toEqual({ type: 'granted', fence: { chat: CHAT, holder: 'A', epoch: 1 } });
      expect(await o.acquireChat(CHAT, 'A', NOW, TTL)).toEqual(first);
      expect(await o.acquireChat(CHAT, 'B', NOW, TTL)).toMatchObject({ type: 'held', holder: 'A' });
      expect(await o.leasedByOthers('B', NOW)).toEqual([CHAT]);
      expect(await o.leasedByOthers('A', NOW)).toEqual([]);
      if (first.type !== 'granted') throw new Error('not granted');
      expect(await o.renewChat(first.fence, NOW, TTL)).toBe(true);
      await o.releaseChat(first.fence);
      expect(await o.renewChat(first.fence, NOW, TTL)).toBe(false);
      expect(await o.acquireChat(CHAT, 'B', NOW, TTL)).toEqual({
        type: 'granted',
        fence: { chat: CHAT, holder: 'B', epoch: 2 },
      });
      // A release with a stale fence gives nothing back.
      await o.releaseChat(first.fence);
      expect(await o.acquireChat(CHAT, 'A', NOW, TTL)).toMatchObject({ type: 'held', holder: 'B' });
    });

    it('the last holder: who gave the lease back, with its registry row while it lives', async () => {
      const s = await fresh();
      const o = s.ownership;
      expect(await o.lastHolder(CHAT)).toBeUndefined();
      const a = await o.register(proc('relay', NOW), NOW + 5);
      const lease = await o.acquireChat(CHAT, a.id, NOW, TTL);
      if (lease.type !== 'granted') throw new Error('not granted');
      // Held, never given back: no last holder yet.
      expect(await o.lastHolder(CHAT)).toBeUndefined();
      await o.releaseChat(lease.fence);
      expect(await o.lastHolder(CHAT)).toEqual({ holder: a.id, lastSeen: NOW + 5 });
      // Taken again by another: the last to give it back is still the one named.
      const b = await o.acquireChat(CHAT, 'B', NOW, TTL);
      expect(await o.lastHolder(CHAT)).toEqual({ holder: a.id, lastSeen: NOW + 5 });
      if (b.type === 'granted') await o.releaseChat(b.fence);
      expect(await o.lastHolder(CHAT)).toEqual({ holder: 'B', lastSeen: undefined });
      await o.deregister(a.id);
      expect(await o.lastHolder(CHAT)).toEqual({ holder: 'B', lastSeen: undefined });
    });

    it('chats with unfinished messages and no live lease are orphans, with the epoch they had', async () => {
      const s = await fresh();
      const w = await s.queue.acceptInbound(inbound({ messageId: 'o' }), { now: NOW, maxPending: 5 });
      expect(w.ok).toBe(true);
      expect(await s.ownership.orphans(NOW)).toEqual([{ chat: CHAT, epoch: 0 }]);
      const lease = await s.ownership.acquireChat(CHAT, 'A', NOW, TTL);
      expect(await s.ownership.orphans(NOW)).toEqual([]);
      if (lease.type === 'granted') await s.ownership.releaseChat(lease.fence);
      expect(await s.ownership.orphans(NOW)).toEqual([{ chat: CHAT, epoch: 1 }]);
    });

    it('leader leases follow the same rules, per name', async () => {
      const s = await fresh();
      const o = s.ownership;
      expect(await o.acquireLeader('scheduler', 'A', NOW, TTL)).toMatchObject({ type: 'granted' });
      expect(await o.acquireLeader('scheduler', 'B', NOW, TTL)).toMatchObject({ type: 'held', holder: 'A' });
      expect(await o.acquireLeader('channel:telegram', 'B', NOW, TTL)).toMatchObject({ type: 'granted' });
      await o.releaseLeader('scheduler', 'B');
      expect(await o.acquireLeader('scheduler', 'B', NOW, TTL)).toMatchObject({ type: 'held', holder: 'A' });
      await o.releaseLeader('scheduler', 'A');
      expect(await o.acquireLeader('scheduler', 'B', NOW, TTL)).toMatchObject({
        type: 'granted',
        fence: { holder: 'B', epoch: 2 },
      });
    });

    it("a job state saved under the scheduler's lease is refused once the lease moved, and writes nothing", async () => {
      const s = await fresh();
      const o = s.ownership;
      const state = (lastRunAt: number) => ({
        fingerprint: 'f',
        lastRunAt,
        failureStreak: 0,
        attempts: 0,
        done: false,
      });
      const a = await o.acquireLeader('scheduler', 'A', NOW, TTL);
      if (a.type !== 'granted') throw new Error('A should lead');
      await s.jobStates.save('heartbeat', state(1), NOW, a.fence);
      await o.releaseLeader('scheduler', 'A');
      const b = await o.acquireLeader('scheduler', 'B', NOW, TTL);
      if (b.type !== 'granted') throw new Error('B should lead');
      await s.jobStates.save('heartbeat', state(2), NOW, b.fence);
      const late = await s.jobStates.save('heartbeat', state(3), NOW, a.fence).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(late).toBeInstanceOf(StoreError);
      expect(late).toMatchObject({ failure: { reason: 'conflict', retryable: false } });
      expect((await s.jobStates.loadAll()).get('heartbeat')?.lastRunAt).toBe(2);
      // A save without a fence (one process on the store) still writes.
      await s.jobStates.save('other', state(4), NOW);
      expect((await s.jobStates.loadAll()).get('other')?.lastRunAt).toBe(4);
    });

    it("a write to another chat is fenced by the writer's own chat lease: refused once it moved, and writes nothing", async () => {
      const s = await fresh();
      const o = s.ownership;
      const items = [{ type: 'text' as const, text: 'x' }];
      const a = await o.acquireChat(CHAT, 'A', NOW, TTL);
      if (a.type !== 'granted') throw new Error('A should hold the chat');
      expect(await s.queue.enqueueForChat('console:other', 'to:1', items, NOW, a.fence)).toEqual({
        ok: true,
        value: 1,
      });
      await o.releaseChat(a.fence);
      const b = await o.acquireChat(CHAT, 'B', NOW, TTL);
      if (b.type !== 'granted') throw new Error('B should hold the chat');
      expect(await s.queue.enqueueForChat('console:other', 'to:2', items, NOW, a.fence)).toMatchObject({
        ok: false,
        reason: 'conflict',
        retryable: false,
      });
      expect(await s.queue.outboxIdOf('to:2')).toBeUndefined();
      expect(await s.queue.enqueueForChat('console:other', 'to:3', items, NOW, b.fence)).toEqual({
        ok: true,
        value: 1,
      });
    });

    it('processes register, stay alive, and leave (or are reaped) taking their leases with them', async () => {
      const s = await fresh();
      const o = s.ownership;
      const a = await o.register(proc('relay', NOW), NOW);
      const b = await o.register(proc('chat', NOW + 1), NOW + 1);
      expect(a.id).not.toBe(b.id);
      expect(typeof a.schemaVersion).toBe('number');
      expect((await o.processes()).map((p) => [p.role, p.lastSeen])).toEqual([
        ['relay', NOW],
        ['chat', NOW + 1],
      ]);
      expect(await o.touch(a.id, NOW + 5)).toBe(true);
      expect((await o.processes())[0]?.lastSeen).toBe(NOW + 5);
      await o.acquireChat(CHAT, a.id, NOW, TTL);
      await o.acquireLeader('retention', b.id, NOW, TTL);
      expect((await o.reap(NOW, (p) => p.id === b.id)).map((p) => p.id)).toEqual([b.id]);
      expect(await o.touch(b.id, NOW)).toBe(false);
      expect(await o.acquireLeader('retention', a.id, NOW, TTL)).toMatchObject({ type: 'granted' });
      await o.deregister(a.id);
      expect(await o.processes()).toEqual([]);
      expect(await o.acquireChat(CHAT, 'C', NOW, TTL)).toMatchObject({
        type: 'granted',
        fence: { epoch: 2 },
      });
    });

    it('notifications are read after an id, in order, at most a limit; old ones are pruned', async () => {
      const s = await fresh();
      const o = s.ownership;
      expect(await o.lastNotification()).toBe(0);
      const ids = [];
      for (const [i, topic] of (['chat_ready', 'outbox', 'tasks_changed'] as const).entries())
        ids.push(await o.notify(topic, CHAT, 'A', NOW + i));
      expect([...ids].sort((x, y) => x - y)).toEqual(ids);
      expect(await o.lastNotification()).toBe(ids[2]);
      expect(await o.notifications(ids[0] ?? 0, 1)).toEqual([
        { id: ids[1], topic: 'outbox', key: CHAT, origin: 'A', at: NOW + 1 },
      ]);
      expect(await o.pruneNotifications(NOW + 2)).toBe(2);
      expect((await o.notifications(0, 10)).map((n) => n.id)).toEqual([ids[2]]);
      // An id is never reused after pruning: a reader after it misses nothing.
      expect(await o.notify('chat_control', '', 'B', NOW + 3)).toBeGreaterThan(ids[2] ?? 0);
    });
  });
}

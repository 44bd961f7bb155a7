// The store contract, continued: the ownership port (processes, chat and leader leases with their
// epochs, notifications), over the ports only (run by storeContract, every engine). Lease lengths are
// long here: an engine may time leases by its own clock (PostgreSQL uses the database's), so expiry
// is each engine's own test, and these hold whichever clock it uses.
import { describe, expect, it } from 'vitest';
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

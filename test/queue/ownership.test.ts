// Two processes on one store, each its own connection, owner and queue (in one test process: the
// store cannot tell). A running row belongs to the process whose lease it was claimed under: a
// process opening the store beside it leaves it (and its questions) alone, and takes it over only
// once that lease ran out, under a higher epoch that refuses every late write of the first.
import { describe, expect, it } from 'vitest';
import type { ChatKey } from '../../src/core/types.js';
import type { OwnershipTimings } from '../../src/queue/process-owner.js';
import { openSqliteStore } from '../../src/store/sqlite/open.js';
import { inbound } from '../store/helpers.js';
import { ok } from './helpers.js';
import { useProcs } from './procs-rig.js';

const CHAT: ChatKey = 'console:local';
/** Short leases, renewed often: the live process never loses one during a test. */
const LIVE: OwnershipTimings = { leaseMs: 400, renewMs: 50, pollMs: 20 };
/** A process that stops renewing (as if paused): its lease runs out after 150 ms. */
const PAUSED: OwnershipTimings = { leaseMs: 150, renewMs: 3_600_000, pollMs: 3_600_000 };

const procs = useProcs();
const { newFile, proc } = procs;

describe('two processes on one store', () => {
  it("B opening the store leaves A's running row and A's pending question alone; A answers it once", async () => {
    const file = newFile();
    const a = await proc(file, LIVE);
    const sent = await a.queue.handleInbound(inbound({ messageId: 'x1', text: 'first' }));
    const id = sent.type === 'stored' ? sent.inboxId : -1;
    await a.agent.untilCalls(1);
    const question = await a.store.interactions.add(
      { chat: CHAT, type: 'question', runKey: `in:${id}`, asker: 'claude', text: 'which one?' },
      Date.now(),
    );
    const b = await proc(file, LIVE);
    await b.queue.whenIdle();
    // Not queued again, not run by B, still A's under its first epoch.
    expect(await b.store.queue.message(id)).toMatchObject({
      status: 'running',
      tries: 1,
      owner: a.owner.id,
      leaseEpoch: 1,
    });
    expect(b.agent.calls).toHaveLength(0);
    expect((await b.store.interactions.get(question.id))?.status).toBe('pending');
    a.agent.pending[0]?.finish(ok('answer from A'));
    await a.channel.untilSent(1);
    await a.queue.whenIdle();
    expect(a.channel.texts()).toEqual(['answer from A']);
    expect(b.channel.texts()).toEqual([]);
    expect(await b.store.queue.message(id)).toMatchObject({ status: 'done', tries: 1 });
  });

  it("after A's lease ran out B takes the row over under a higher epoch, and A's late writes are refused", async () => {
    const file = newFile();
    const a = await proc(file, PAUSED);
    const sent = await a.queue.handleInbound(inbound({ messageId: 'x2', text: 'slow one' }));
    const id = sent.type === 'stored' ? sent.inboxId : -1;
    await a.agent.untilCalls(1);
    const fenceA = a.owner.fence(CHAT);
    expect(fenceA?.epoch).toBe(1);
    const b = await proc(file, LIVE);
    // B's orphan scan finds the chat once A's lease ran out, takes it, and runs the row again.
    await b.agent.untilCalls(1);
    const row = await b.store.queue.message(id);
    expect(row).toMatchObject({ status: 'running', owner: b.owner.id, leaseEpoch: 2, tries: 2 });
    // A wakes: its answer is refused, nothing of it is written.
    a.agent.pending[0]?.finish(ok('late answer from A'));
    await a.queue.whenIdle();
    expect(await b.store.queue.message(id)).toMatchObject({ status: 'running', owner: b.owner.id });
    expect(await a.store.queue.nextUnsent(CHAT)).toBeUndefined();
    b.agent.pending[0]?.finish(ok('answer from B'));
    await b.channel.untilSent(1);
    await b.queue.whenIdle();
    expect(b.channel.texts()).toEqual(['answer from B']);
    expect(a.channel.texts()).toEqual([]);
    expect(await a.store.queue.message(id)).toMatchObject({ status: 'done', owner: b.owner.id });
    // Every other run-side write under A's fence is refused, and writes nothing.
    if (!fenceA) throw new Error('no fence');
    const conflict = { ok: false, reason: 'conflict', retryable: false };
    const w = a.store.queue;
    const now = Date.now();
    expect(await w.finishRun({ chat: CHAT, ids: [id], now, status: 'failed', fence: fenceA })).toMatchObject(
      conflict,
    );
    expect(await w.requeueRun([id], now, undefined, fenceA)).toMatchObject(conflict);
    expect(await w.enqueueReply(CHAT, 'tool:1', [{ type: 'text', text: 'x' }], now, fenceA)).toMatchObject(
      conflict,
    );
    const session = {
      scope: CHAT,
      agent: 'claude' as const,
      id: 's-late',
      confirmed: true,
      touch: true,
      generation: 0,
    };
    expect(await w.keepSession(session, now, fenceA)).toMatchObject(conflict);
    expect((await w.session(CHAT, 'claude')).row?.sessionId).not.toBe('s-late');
    // The deliverers stop first: B's would otherwise send the chunk below between two reads.
    a.queue.deliverer.stop();
    b.queue.deliverer.stop();
    await Promise.all([a.queue.deliverer.idle(), b.queue.deliverer.idle()]);
    const fenceB = b.owner.fence(CHAT) ?? (await b.owner.take(CHAT))?.fence;
    if (!fenceB) throw new Error('B holds no lease');
    const key = await w.enqueueReply(CHAT, 'sys:b', [{ type: 'text', text: 'from B' }], now, fenceB);
    expect(key.ok).toBe(true);
    const chunk = await w.nextUnsent(CHAT);
    if (!chunk) throw new Error('no chunk');
    expect(await w.markChunkSent(chunk.id, now, undefined, fenceA)).toMatchObject(conflict);
    expect((await w.nextUnsent(CHAT))?.id).toBe(chunk.id);
    expect(await w.markChunkSent(chunk.id, now, undefined, fenceB)).toEqual({ ok: true, value: undefined });
    expect(await w.finishRun({ chat: CHAT, ids: [id], now, status: 'failed', fence: fenceA })).toMatchObject(
      conflict,
    );
    expect(await w.message(id)).toMatchObject({ status: 'done' });
    await b.owner.drop(CHAT);
  });

  it('leases: one holder at a time, epochs only grow, a released or expired lease goes to the next', async () => {
    const file = newFile();
    const store = await openSqliteStore(file);
    try {
      const o = store.ownership;
      const t0 = 1_000_000;
      expect(await o.acquireChat(CHAT, 'a', t0, 100)).toEqual({
        type: 'granted',
        fence: { chat: CHAT, holder: 'a', epoch: 1 },
      });
      expect(await o.acquireChat(CHAT, 'b', t0 + 50, 100)).toEqual({
        type: 'held',
        holder: 'a',
        expiresAt: t0 + 100,
      });
      // A renewal by its holder keeps the epoch, also after it ran out unnoticed.
      expect(await o.acquireChat(CHAT, 'a', t0 + 150, 100)).toMatchObject({ fence: { epoch: 1 } });
      expect(await o.acquireChat(CHAT, 'b', t0 + 300, 100)).toMatchObject({
        fence: { holder: 'b', epoch: 2 },
      });
      expect(await o.renewChat({ chat: CHAT, holder: 'a', epoch: 1 }, t0 + 300, 100)).toBe(false);
      await o.releaseChat({ chat: CHAT, holder: 'b', epoch: 2 });
      expect(await o.acquireChat(CHAT, 'a', t0 + 310, 100)).toMatchObject({
        fence: { holder: 'a', epoch: 3 },
      });
      expect(await o.leasedByOthers('b', t0 + 320)).toEqual([CHAT]);
      expect(await o.leasedByOthers('a', t0 + 320)).toEqual([]);
      // Leaders follow the same rules.
      expect(await o.acquireLeader('scheduler:console', 'a', t0, 100)).toMatchObject({ type: 'granted' });
      expect(await o.acquireLeader('scheduler:console', 'b', t0 + 10, 100)).toMatchObject({ type: 'held' });
      await o.releaseLeader('scheduler:console', 'a');
      expect(await o.acquireLeader('scheduler:console', 'b', t0 + 20, 100)).toMatchObject({
        type: 'granted',
      });
      // Notifications: read after an id, in order.
      const first = await o.notify('chat_ready', CHAT, 'a', t0);
      await o.notify('outbox', CHAT, 'b', t0 + 1);
      expect((await o.notifications(first - 1, 10)).map((n) => [n.topic, n.origin])).toEqual([
        ['chat_ready', 'a'],
        ['outbox', 'b'],
      ]);
      expect(await o.pruneNotifications(t0 + 1)).toBe(1);
      expect(await o.lastNotification()).toBe(first + 1);
    } finally {
      await store.close();
    }
  });

  it('a process found gone (its pid no longer exists) is reaped: its leases end at once, epochs kept', async () => {
    const file = newFile();
    const store = await openSqliteStore(file);
    try {
      const o = store.ownership;
      const dead = await o.register({ host: 'h', pid: 1, role: 'chat', startedAt: 1, fingerprint: 'f' }, 1);
      expect(await o.acquireChat(CHAT, dead.id, 10, 60_000)).toMatchObject({ fence: { epoch: 1 } });
      expect(await o.acquireChat(CHAT, 'b', 20, 60_000)).toMatchObject({ type: 'held' });
      expect((await o.reap(30, (p) => p.id === dead.id)).map((p) => p.id)).toEqual([dead.id]);
      expect(await o.processes()).toEqual([]);
      expect(await o.acquireChat(CHAT, 'b', 40, 60_000)).toMatchObject({ fence: { holder: 'b', epoch: 2 } });
    } finally {
      await store.close();
    }
  });
});

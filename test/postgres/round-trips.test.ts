// Round trips to the server per queue operation on PostgreSQL, counted on the client (every query a
// pooled connection sends; a multi-statement string is one round trip). The hot path of a message
// (accepted, claimed, finished with its reply and session, its chunk marked sent), with the fences
// a relay beside others carries. The counts are the engine's budget: a change that adds a round
// trip to one of these fails here. The other chat writes on a message's way (a run requeued, a
// progress reply, a tool's message to another chat, the run's history row, recovery after a crash)
// and the questions' writes are counted too, with their fences refused as before.
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import type { OwnershipTimings } from '../../src/queue/process-owner.js';
import { readyKey } from '../../src/queue/ready-key.js';
import type { Written } from '../../src/store/errors.js';
import type { Store } from '../../src/store/open.js';
import type { Fence, OwnershipStore } from '../../src/store/ownership.js';
import { chatLock, lockKey } from '../../src/store/postgres/pool.js';
import { openPostgresStore } from '../../src/store/postgres/store.js';
import { FakeAgent, ok } from '../queue/helpers.js';
import { type Proc, useProcs } from '../queue/procs-rig.js';
import { inbound } from '../store/helpers.js';
import { freshDatabase } from '../support/postgres-db.js';

const CHAT = 'console:local' as const;
const NOW = 1_700_000_000_000;
const text = (t: string) => [{ type: 'text' as const, text: t }];

const opened: Store[] = [];
const realQuery = pg.Client.prototype.query;
let sent = 0;
afterEach(async () => {
  pg.Client.prototype.query = realQuery;
  for (const s of opened.splice(0)) await s.close().catch(() => undefined);
});

/** Counts every query any client of this process sends from now on. */
function countQueries(): void {
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    sent++;
    return (realQuery as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof realQuery;
}

/** The round trips `op` took, and its value (refused: the test fails). */
async function trips<T>(op: () => Promise<Written<T>>): Promise<{ n: number; value: T }> {
  sent = 0;
  const w = await op();
  if (!w.ok) throw new Error(`refused: ${w.message}`);
  return { n: sent, value: w.value };
}

describe('round trips per queue operation on PostgreSQL', () => {
  it('accept, claim, finish with reply and session, mark sent, notify: one round trip each, two for a claim', async () => {
    const s = await openPostgresStore(await freshDatabase());
    opened.push(s);
    const lease = await s.ownership.acquireChat(CHAT, 'A', NOW, 60_000);
    if (lease.type !== 'granted') throw new Error('not granted');
    const fence: Fence = lease.fence;
    countQueries();

    const counts: Record<string, number> = {};
    const accept = await trips(() =>
      s.queue.acceptInbound(inbound({ messageId: 'm1' }), { now: NOW, maxPending: 1 }),
    );
    counts.acceptInbound = accept.n;
    const dropped = await trips(() =>
      s.queue.acceptInbound(inbound({ messageId: 'm2' }), {
        now: NOW,
        maxPending: 1,
        dropNotice: text('full'),
      }),
    );
    expect(dropped.value).toMatchObject({ type: 'dropped', noticed: true });
    counts.acceptDropped = dropped.n;

    const claim = await trips(() => s.queue.claimNextRun(CHAT, 10, NOW, (w) => ({ count: w.length }), fence));
    expect(claim.value?.rows.map((r) => r.messageId)).toEqual(['m1']);
    counts.claimNextRun = claim.n;

    const session = { scope: CHAT, agent: 'claude', id: 's1', generation: 0, confirmed: true, touch: true };
    const finish = await trips(() =>
      s.queue.finishRun({
        chat: CHAT,
        ids: claim.value?.rows.map((r) => r.id) ?? [],
        now: NOW + 1,
        status: 'done',
        reply: { key: 'in:m1', items: text('hi') },
        session,
        fence,
      }),
    );
    counts.finishRun = finish.n;

    const chunk = await s.queue.nextUnsent(CHAT);
    expect(chunk).toMatchObject({ key: 'drop:2' });
    if (!chunk) throw new Error('no chunk');
    counts.markChunkSent = (await trips(() => s.queue.markChunkSent(chunk.id, NOW + 2, 'p1', fence))).n;
    const reply = await s.queue.nextUnsent(CHAT);
    if (!reply) throw new Error('no reply');
    counts.markChunkSentUnfenced = (await trips(() => s.queue.markChunkSent(reply.id, NOW + 3, 'p2'))).n;

    sent = 0;
    expect(await s.ownership.notify('chat_ready', CHAT, 'A', NOW)).toBeGreaterThan(0);
    counts.notify = sent;

    expect(counts).toEqual({
      acceptInbound: 1,
      acceptDropped: 1,
      claimNextRun: 2,
      finishRun: 1,
      markChunkSent: 1,
      markChunkSentUnfenced: 1,
      notify: 1,
    });
    // What the operations wrote is what they said.
    expect(await s.repliesFor('in:m1')).toEqual([{ status: 'sent' }]);
    expect(await s.queue.message(claim.value?.rows[0]?.id ?? 0)).toMatchObject({ status: 'done' });
    expect((await s.queue.session(CHAT, 'claude')).row).toMatchObject({ sessionId: 's1', confirmed: true });
  });

  it('requeue, a fenced reply, a write to another chat, the run history and recovery: one round trip each', async () => {
    const s = await openPostgresStore(await freshDatabase());
    opened.push(s);
    const lease = await s.ownership.acquireChat(CHAT, 'A', NOW, 60_000);
    if (lease.type !== 'granted') throw new Error('not granted');
    const fence: Fence = lease.fence;
    for (const id of ['m1', 'm2'])
      await s.queue.acceptInbound(inbound({ messageId: id }), { now: NOW, maxPending: 10 });
    const claimed = await s.queue.claimNextRun(CHAT, 1, NOW, () => ({ count: 1 }), fence);
    if (!claimed.ok || !claimed.value) throw new Error('no claim');
    const ids = claimed.value.rows.map((r) => r.id);
    countQueries();

    const counts: Record<string, number> = {};
    const session = { scope: CHAT, agent: 'claude', id: 's1', generation: 0, confirmed: false, touch: true };
    counts.requeueRun = (await trips(() => s.queue.requeueRun(ids, NOW + 1, session, fence))).n;
    expect(await s.queue.message(ids[0] ?? 0)).toMatchObject({ status: 'pending', tries: 0 });
    expect((await s.queue.session(CHAT, 'claude')).row).toMatchObject({ sessionId: 's1', confirmed: false });

    const progress = await trips(() => s.queue.enqueueReply(CHAT, 'progress:1', text('working'), NOW, fence));
    expect(progress.value).toBe(1);
    counts.enqueueReply = progress.n;
    const other = await trips(() => s.queue.enqueueForChat('console:other', 'to:1', text('hi'), NOW, fence));
    expect(other.value).toBe(1);
    counts.enqueueForChat = other.n;

    counts.recordRun = (
      await trips(() =>
        s.queue.recordRun({
          chat: CHAT,
          agent: 'claude',
          label: 'claude',
          startedAt: NOW,
          durationMs: 1200.4,
          outcome: 'done',
          usage: { inputTokens: 3, outputTokens: 4, costUsd: 0.5 },
        }),
      )
    ).n;

    // Recovery of the chat this process just took: one message waits again, the other fails with its notice.
    const again = await s.queue.claimNextRun(CHAT, 2, NOW, () => ({ count: 2 }), fence);
    if (!again.ok || !again.value) throw new Error('no claim');
    const [r1, r2] = again.value.rows.map((r) => r.id);
    if (r1 === undefined || r2 === undefined) throw new Error('two rows expected');
    countQueries();
    counts.recover = (
      await trips(() =>
        s.queue.recover({
          now: NOW + 5,
          requeue: [r1],
          fail: new Map([[CHAT, [r2]]]),
          notice: text('Lost.'),
          fences: [fence],
        }),
      )
    ).n;
    expect(await s.queue.message(r1)).toMatchObject({ status: 'pending', tries: 1 });
    expect(await s.queue.message(r2)).toMatchObject({ status: 'failed', note: 'crashed_twice' });
    expect(await s.repliesFor(`crash:${r2}`)).toEqual([{ status: 'pending', error: undefined }]);

    expect(counts).toEqual({ requeueRun: 1, enqueueReply: 1, enqueueForChat: 1, recordRun: 1, recover: 1 });
  });

  it('the folded writes keep their fences: a holder whose lease moved is refused as conflict and writes nothing', async () => {
    const s = await openPostgresStore(await freshDatabase());
    opened.push(s);
    const lease = await s.ownership.acquireChat(CHAT, 'A', NOW, 60_000);
    if (lease.type !== 'granted') throw new Error('not granted');
    await s.queue.acceptInbound(inbound({ messageId: 'm1' }), { now: NOW, maxPending: 10 });
    const claimed = await s.queue.claimNextRun(CHAT, 1, NOW, () => ({ count: 1 }), lease.fence);
    if (!claimed.ok || !claimed.value) throw new Error('no claim');
    const ids = claimed.value.rows.map((r) => r.id);
    // The lease moves to B (released by A, taken at the next epoch).
    await s.ownership.releaseChat(lease.fence);
    const next = await s.ownership.acquireChat(CHAT, 'B', NOW, 60_000);
    if (next.type !== 'granted') throw new Error('not granted to B');
    const old = lease.fence;
    const session = {
      scope: CHAT,
      agent: 'claude',
      id: 's-old',
      generation: 0,
      confirmed: true,
      touch: true,
    };
    const refusals = await Promise.all([
      s.queue.requeueRun(ids, NOW, session, old),
      s.queue.enqueueReply(CHAT, 'late-progress', text('still here'), NOW, old),
      // A fence of another chat is no fence for this one, even a live one.
      s.queue.enqueueReply('console:other', 'wrong-chat', text('x'), NOW, next.fence),
      s.queue.enqueueForChat('console:other', 'late-to', text('elsewhere'), NOW, old),
      s.queue.recover({
        now: NOW,
        requeue: ids,
        fail: new Map(),
        notice: text('Lost.'),
        fences: [next.fence, old],
      }),
    ]);
    for (const r of refusals) expect(r).toMatchObject({ ok: false, reason: 'conflict', retryable: false });
    // The refusal names the fence that failed and the lease as it is.
    expect(refusals[4]).toMatchObject({
      message: expect.stringContaining(
        `this write carries epoch ${old.epoch}, the chat has epoch ${next.fence.epoch} of B`,
      ),
    });
    expect(await s.queue.message(ids[0] ?? 0)).toMatchObject({ status: 'running', tries: 1 });
    expect((await s.queue.session(CHAT, 'claude')).row).toBeUndefined();
    for (const key of ['late-progress', 'wrong-chat', 'late-to']) expect(await s.repliesFor(key)).toEqual([]);
  });

  it("the questions' writes: shown, answered by a message, a message swallowed, closed: one round trip each", async () => {
    const url = await freshDatabase();
    const s = await openPostgresStore(url);
    opened.push(s);
    const notice = (key: string) => ({ key, items: text(key) });
    const ask = { chat: CHAT, type: 'question' as const, runKey: 'in:1', asker: 'claude', text: 'Which?' };
    const q = await s.interactions.add(ask, NOW);
    const q2 = await s.interactions.add(ask, NOW);
    countQueries();
    const counts: Record<string, number> = {};
    const one = async <T>(name: string, op: () => Promise<T>): Promise<T> => {
      sent = 0;
      const out = await op();
      counts[name] = sent;
      return out;
    };
    expect(await one('show', () => s.interactions.show(q.id, NOW + 1, NOW + 60_000, notice('ask:1')))).toBe(
      true,
    );
    const msg = inbound({ messageId: 'a1', text: 'dev' });
    expect(await one('answer', () => s.interactions.answer(msg, q.id, 'dev', NOW + 2, notice('ack:1')))).toBe(
      'answered',
    );
    expect(
      await one('swallow', () =>
        s.interactions.swallow(inbound({ messageId: 'sw' }), NOW, 'no', notice('sw:1')),
      ),
    ).toBe(true);
    expect(await one('close', () => s.interactions.close(q2.id, 'expired', NOW + 3, notice('exp:1')))).toBe(
      true,
    );
    expect(counts).toEqual({ show: 1, answer: 1, swallow: 1, close: 1 });
    expect(await s.interactions.get(q.id)).toMatchObject({
      status: 'answered',
      answer: 'dev',
      shownAt: NOW + 1,
    });
    expect(await s.interactions.get(q2.id)).toMatchObject({ status: 'expired', closedAt: NOW + 3 });
    for (const key of ['ask:1', 'ack:1', 'sw:1', 'exp:1']) expect(await s.repliesFor(key)).toHaveLength(1);

    // A function that learns its chat by reading takes the same lock the TypeScript side names.
    pg.Client.prototype.query = realQuery;
    const c = new pg.Client(url);
    await c.connect();
    try {
      const r = await c.query<{ k: string }>('SELECT aw_chat_lock_key($1)::text AS k', [CHAT]);
      expect(r.rows[0]?.k).toBe(lockKey(chatLock(CHAT)));
    } finally {
      await c.end();
    }
  });
});

// Several processes on one database: what a message costs the processes that do not hold its chat.
// Each is a real owner and queue on its own pool; its ownership port counts its calls.
const procs = useProcs();

/** Pushes deliver the notifications; polls, renewals and the orphan scan wait a minute (none in a test). */
const PUSHED: OwnershipTimings = { leaseMs: 180_000, renewMs: 60_000, pollMs: 60_000, affinityMs: 60_000 };
/** Renewals and the orphan scan every 100 ms: a chat left to a holder that is gone is found. */
const SCANNED: OwnershipTimings = { leaseMs: 3_000, renewMs: 100, pollMs: 50, affinityMs: 100 };

type Calls = Record<string, number>;

/** The port with a count of each method's calls (reset by assigning a fresh count). */
function counting(port: OwnershipStore, calls: { now: Calls }): OwnershipStore {
  return new Proxy(port, {
    get(target, name, receiver) {
      const v = Reflect.get(target, name, receiver);
      if (typeof v !== 'function') return v;
      return (...args: unknown[]) => {
        calls.now[String(name)] = (calls.now[String(name)] ?? 0) + 1;
        return v.apply(target, args);
      };
    },
  });
}

async function relay(url: string, timings: OwnershipTimings): Promise<Proc & { calls: { now: Calls } }> {
  const calls = { now: {} as Calls };
  const p = await procs.proc('', timings, new FakeAgent(), {
    open: () => openPostgresStore(url),
    port: (port) => counting(port, calls),
  });
  return { ...p, calls };
}

/** Polls `check` until it holds, at most `ms`. */
async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** The `chat_ready` keys `p` hears from other processes. */
function readyHeard(p: Proc): string[] {
  const heard: string[] = [];
  p.owner.on('chat_ready', (key, own) => {
    if (!own) heard.push(key);
  });
  return heard;
}

const leaseCalls = (c: Calls) => ({
  acquireChat: c.acquireChat ?? 0,
  lastHolder: c.lastHolder ?? 0,
  notify: c.notify ?? 0,
});

describe('a chat another process holds: no lease attempt by the processes that do not', () => {
  it('B stores a message for the chat A holds: B tells A by name, tries no lease; C hears it and tries none either', async () => {
    const url = await freshDatabase();
    const a = await relay(url, PUSHED);
    const b = await relay(url, PUSHED);
    const c = await relay(url, PUSHED);
    // A holds the chat (as while one of its runs goes on).
    const held = await a.owner.take(CHAT, { forRun: true });
    expect(held?.fresh).toBe(true);
    const cHeard = readyHeard(c);
    b.calls.now = {};
    c.calls.now = {};

    expect(await b.queue.handleInbound(inbound({ messageId: 'n1', text: 'for A' }))).toMatchObject({
      type: 'stored',
    });
    // A runs it: B's chat_ready named it. C heard the same notification, and is left idle.
    await a.agent.untilCalls(1);
    await until(() => cHeard.length > 0, 'C hears the chat_ready');
    await c.queue.whenIdle();
    await b.queue.whenIdle();
    expect({ b: leaseCalls(b.calls.now), c: leaseCalls(c.calls.now) }).toEqual({
      b: { acquireChat: 0, lastHolder: 0, notify: 1 },
      c: { acquireChat: 0, lastHolder: 0, notify: 0 },
    });
    expect(cHeard).toEqual([readyKey(CHAT, a.owner.id)]);

    a.agent.pending[0]?.finish(ok('from A'));
    await until(() => a.channel.texts().includes('from A'), 'A sends its reply');
    await a.queue.whenIdle();
    // Nothing else was told (no round of chat_ready between B and C), and only A ran the message.
    expect(cHeard).toHaveLength(1);
    expect(leaseCalls(c.calls.now)).toEqual({ acquireChat: 0, lastHolder: 0, notify: 0 });
    expect([b.agent.calls.length, c.agent.calls.length]).toEqual([0, 0]);
    expect([...b.channel.texts(), ...c.channel.texts()]).toEqual([]);
    await a.owner.drop(CHAT);
  });

  it('a holder named in chat_ready that is gone: its lease runs out, and one process takes the chat and runs the message once', async () => {
    const url = await freshDatabase();
    const b = await relay(url, SCANNED);
    const c = await relay(url, SCANNED);
    // The chat's holder died with its lease (no process row, nothing to hear the notification).
    const dead = await b.store.ownership.acquireChat(CHAT, 'gone-process', Date.now(), 1_000);
    expect(dead.type).toBe('granted');
    const cHeard = readyHeard(c);
    expect(await b.queue.handleInbound(inbound({ messageId: 'd1', text: 'for the dead' }))).toMatchObject({
      type: 'stored',
    });
    await until(() => cHeard.length > 0, 'C hears the chat_ready');
    expect(cHeard).toEqual([readyKey(CHAT, 'gone-process')]);
    // The orphan scan finds the chat once the lease ran out; one of them runs the message.
    await until(() => b.agent.calls.length + c.agent.calls.length === 1, 'the message runs');
    for (const p of [b, c]) p.agent.pending[0]?.finish(ok('taken over'));
    await until(
      () => [...b.channel.texts(), ...c.channel.texts()].includes('taken over'),
      'the reply is sent',
    );
    await b.queue.whenIdle();
    await c.queue.whenIdle();
    expect(b.agent.calls.length + c.agent.calls.length).toBe(1);
    expect([...b.channel.texts(), ...c.channel.texts()]).toEqual(['taken over']);
  });
});

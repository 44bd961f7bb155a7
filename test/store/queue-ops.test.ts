// The queue's store operations on SQLite: each one transaction (a write refused halfway leaves
// nothing behind), each a Promise, a full disk an error value the queue can retry on.
import { afterEach, describe, expect, it } from 'vitest';
import { getInbound } from '../../src/store/sqlite/inbox.js';
import { rowsForKey } from '../../src/store/sqlite/outbox.js';
import { sqliteQueueStore } from '../../src/store/sqlite/queue-sqlite.js';
import { getChatSettings, getSession, saveSession } from '../../src/store/sqlite/sessions.js';
import { fullDisk } from '../faults/full-disk.js';
import { inbound, tempDb } from './helpers.js';

let t: ReturnType<typeof tempDb>;
afterEach(() => t?.cleanup());

const NOW = 1_700_000_000_000;
const CHAT = 'console:local' as const;
const notice = [{ type: 'text' as const, text: 'full' }];

function setup() {
  t = tempDb();
  const disk = fullDisk(t.db);
  return { disk, store: sqliteQueueStore(disk.db) };
}

const got = async <T>(p: Promise<{ ok: true; value: T } | { ok: false }>): Promise<T> => {
  const w = await p;
  if (!w.ok) throw new Error('refused');
  return w.value;
};

describe('acceptInbound', () => {
  it('stores, dedupes, and drops past the cap with the notice only when asked', async () => {
    const { store } = setup();
    const opts = { now: NOW, maxPending: 1 };
    expect(await got(store.acceptInbound(inbound({ messageId: 'a' }), opts))).toMatchObject({
      type: 'stored',
    });
    expect(await got(store.acceptInbound(inbound({ messageId: 'a' }), opts))).toEqual({
      type: 'duplicate',
    });
    const dropped = await got(
      store.acceptInbound(inbound({ messageId: 'b' }), { ...opts, dropNotice: notice }),
    );
    expect(dropped).toMatchObject({ type: 'dropped', noticed: true });
    const quiet = await got(store.acceptInbound(inbound({ messageId: 'c' }), opts));
    expect(quiet).toMatchObject({ type: 'dropped', noticed: false });
    if (dropped.type !== 'dropped') throw new Error('not dropped');
    expect(rowsForKey(t.db, `drop:${dropped.id}`)).toHaveLength(1);
    expect(getInbound(t.db, dropped.id)).toMatchObject({ status: 'dropped', note: 'queue_full' });
  });

  it('a full disk is a retryable value and stores nothing', async () => {
    const { store, disk } = setup();
    disk.fill();
    expect(await store.acceptInbound(inbound(), { now: NOW, maxPending: 5 })).toMatchObject({
      ok: false,
      retryable: true,
    });
    disk.free();
    expect(await store.countPending(CHAT)).toBe(0);
  });
});

describe('claimNextRun', () => {
  it('the busy policy sees the waiting rows; what it takes becomes running with a try', async () => {
    const { store } = setup();
    for (const id of ['a', 'b', 'c'])
      await store.acceptInbound(inbound({ messageId: id, text: id }), { now: NOW, maxPending: 10 });
    let seen: string[] = [];
    const claim = await got(
      store.claimNextRun(CHAT, 2, NOW + 1, (rows) => {
        seen = rows.map((r) => r.text);
        return { count: 1 };
      }),
    );
    expect(seen).toEqual(['a', 'b']);
    expect(claim?.rows.map((r) => [r.text, r.status, r.tries])).toEqual([['a', 'running', 1]]);
    expect(getInbound(t.db, claim?.rows[0]?.id ?? 0)).toMatchObject({ status: 'running', tries: 1 });
    expect(await store.countPending(CHAT)).toBe(2);
  });

  it('nothing waiting: nothing claimed', async () => {
    const { store } = setup();
    expect(await got(store.claimNextRun(CHAT, 5, NOW, () => ({ count: 1 })))).toBeUndefined();
  });
});

describe('finishRun', () => {
  it('writes the answer, the final rows and the session together, or nothing', async () => {
    const { store, disk } = setup();
    await store.acceptInbound(inbound(), { now: NOW, maxPending: 10 });
    const claim = await got(store.claimNextRun(CHAT, 5, NOW, () => ({ count: 1 })));
    const ids = claim?.rows.map((r) => r.id) ?? [];
    const run = {
      chat: CHAT,
      ids,
      now: NOW,
      status: 'done' as const,
      reply: { key: `in:${ids[0]}`, items: [{ type: 'text' as const, text: 'answer' }] },
      session: {
        scope: CHAT,
        agent: 'claude' as const,
        id: 's1',
        generation: 0,
        confirmed: true,
        touch: true,
      },
    } as const;
    // The reply goes in, then the row update is refused: the reply must not stay without it.
    disk.failNext(1, /UPDATE inbox/);
    expect(await store.finishRun(run)).toMatchObject({ ok: false, retryable: true });
    expect(rowsForKey(t.db, `in:${ids[0]}`)).toEqual([]);
    expect(getInbound(t.db, ids[0] ?? 0)).toMatchObject({ status: 'running' });
    expect(getSession(t.db, CHAT, 'claude')).toBeUndefined();
    // Written again once the disk has room: one reply, done, session kept.
    expect(await store.finishRun(run)).toEqual({ ok: true, value: undefined });
    expect(await store.finishRun(run)).toEqual({ ok: true, value: undefined });
    expect(rowsForKey(t.db, `in:${ids[0]}`)).toHaveLength(1);
    expect(getInbound(t.db, ids[0] ?? 0)).toMatchObject({ status: 'done' });
    expect(getSession(t.db, CHAT, 'claude')?.sessionId).toBe('s1');
  });

  it('requeueRun puts the rows back to wait and takes the try back', async () => {
    const { store } = setup();
    await store.acceptInbound(inbound(), { now: NOW, maxPending: 10 });
    const claim = await got(store.claimNextRun(CHAT, 5, NOW, () => ({ count: 1 })));
    const id = claim?.rows[0]?.id ?? 0;
    expect(await store.requeueRun([id], NOW)).toEqual({ ok: true, value: undefined });
    expect(getInbound(t.db, id)).toMatchObject({ status: 'pending', tries: 0 });
  });
});

describe('acceptCommand', () => {
  it('decides on the state read in its transaction, applies the durable effects and writes the reply once', async () => {
    const { store } = setup();
    saveSession(t.db, CHAT, 'claude', 'old', NOW);
    await store.acceptInbound(inbound({ messageId: 'w' }), { now: NOW, maxPending: 10 });
    let decided = 0;
    const opts = {
      now: NOW,
      scope: CHAT,
      defaultAgent: 'claude' as const,
      note: 'stop',
      items: (reply: string) => [{ type: 'text' as const, text: reply }],
    };
    const decide = (snap: { waiting: number; session?: { sessionId: string } }) => {
      decided++;
      expect(snap).toMatchObject({ waiting: 1, session: { sessionId: 'old' } });
      return {
        reply: 'ok',
        effects: [
          { type: 'drop_waiting' as const },
          { type: 'clear_session' as const, scope: CHAT, agent: 'claude' as const },
          { type: 'set_chat' as const, change: { verbose: true } },
          { type: 'stop_run' as const },
        ],
      };
    };
    const cmd = inbound({ messageId: 'c', text: '/stop' });
    const out = await got(store.acceptCommand(cmd, opts, decide));
    expect(out).toMatchObject({ type: 'applied' });
    expect(await got(store.acceptCommand(cmd, opts, decide))).toEqual({ type: 'duplicate' });
    expect(decided).toBe(1);
    expect(await store.countPending(CHAT)).toBe(0);
    expect(getSession(t.db, CHAT, 'claude')).toBeUndefined();
    expect(getChatSettings(t.db, CHAT).verbose).toBe(true);
    if (out.type !== 'applied') throw new Error('not applied');
    expect(rowsForKey(t.db, `cmd:${out.id}`).map((r) => r.item)).toEqual([{ type: 'text', text: 'ok' }]);
  });

  const cmdOpts = (note: string) => ({
    now: NOW,
    scope: CHAT,
    defaultAgent: 'claude' as const,
    note,
    items: (reply: string) => [{ type: 'text' as const, text: reply }],
  });

  it('/stop marks the running messages stopped: a requeue after it (an interrupt that came first) finds none', async () => {
    const { store } = setup();
    await store.acceptInbound(inbound({ messageId: 'r' }), { now: NOW, maxPending: 10 });
    const claim = await got(store.claimNextRun(CHAT, 5, NOW, () => ({ count: 1 })));
    const id = claim?.rows[0]?.id ?? 0;
    await got(
      store.acceptCommand(inbound({ messageId: 's', text: '/stop' }), cmdOpts('stop'), () => ({
        reply: 'Stopped the agent.',
        effects: [{ type: 'drop_waiting' as const }, { type: 'stop_run' as const }],
      })),
    );
    expect(getInbound(t.db, id)).toMatchObject({ status: 'done', note: 'stopped' });
    await got(store.requeueRun([id], NOW));
    expect(getInbound(t.db, id)).toMatchObject({ status: 'done', note: 'stopped' });
    expect(await store.countPending(CHAT)).toBe(0);
  });

  it('the snapshot names the running messages, whichever process claimed them (a /stop beside the holder)', async () => {
    const { store } = setup();
    const seen: unknown[] = [];
    const look = (note: string, messageId: string) =>
      got(
        store.acceptCommand(inbound({ messageId, text: '/status' }), cmdOpts(note), (snap) => {
          seen.push(snap.running);
          return { reply: '', effects: [] };
        }),
      );
    await look('status', 's1');
    await store.acceptInbound(inbound({ messageId: 'r1', senderId: 'alice' }), { now: NOW, maxPending: 10 });
    await store.acceptInbound(inbound({ messageId: 'r2', senderId: 'bob' }), { now: NOW, maxPending: 10 });
    await got(store.claimNextRun(CHAT, 5, NOW + 5, () => ({ count: 1 })));
    await look('status', 's2');
    expect(seen).toEqual([[], [{ startedAt: NOW + 5, senderId: 'alice' }]]);
  });

  it("/new bumps the scope's generation: a run that started before it keeps no session", async () => {
    const { store } = setup();
    const before = await store.session(CHAT, 'claude');
    expect(before).toEqual({ row: undefined, generation: 0 });
    await got(
      store.acceptCommand(inbound({ messageId: 'n', text: '/new' }), cmdOpts('new'), () => ({
        reply: 'Started a fresh session.',
        effects: [
          { type: 'clear_session' as const, scope: CHAT, agent: 'claude' as const },
          { type: 'reset_scope' as const, scope: CHAT },
        ],
      })),
    );
    const kept = { scope: CHAT, agent: 'claude' as const, confirmed: true, touch: true };
    await got(store.keepSession({ ...kept, id: 'old-run', generation: before.generation }, NOW));
    expect(getSession(t.db, CHAT, 'claude')).toBeUndefined();
    const after = await store.session(CHAT, 'claude');
    expect(after.generation).toBe(1);
    await got(store.keepSession({ ...kept, id: 'new-run', generation: after.generation }, NOW));
    expect((await store.session(CHAT, 'claude')).row?.sessionId).toBe('new-run');
  });
});

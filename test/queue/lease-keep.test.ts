// A chat's lease across back-to-back runs of one process: when the next message already waits as a
// run ends, the lease is kept for the run that takes it (not given back and taken again, and what the
// chat left running not read again), with the same fence on its claim; once nothing waits it is
// given back. Real SQLite in a temp folder; the ownership port and the queue store are the real ones,
// counted.
import { describe, expect, it } from 'vitest';
import type { ChatKey } from '../../src/core/types.js';
import type { OwnershipTimings } from '../../src/queue/process-owner.js';
import type { Store } from '../../src/store/open.js';
import { openSqliteStore } from '../../src/store/sqlite/open.js';
import { inbound } from '../store/helpers.js';
import { FakeAgent, ok } from './helpers.js';
import { useProcs } from './procs-rig.js';

const CHAT: ChatKey = 'console:local';
/** Timers that never fire during a test: every lease call here is one the queue made. */
const QUIET: OwnershipTimings = { leaseMs: 30_000, renewMs: 3_600_000, pollMs: 3_600_000 };

const procs = useProcs();

/** `target` with a count of each method's calls. */
function counted<T extends object>(target: T, calls: Record<string, number>): T {
  return new Proxy(target, {
    get(t, name, receiver) {
      const v = Reflect.get(t, name, receiver);
      if (typeof v !== 'function') return v;
      return (...args: unknown[]) => {
        calls[String(name)] = (calls[String(name)] ?? 0) + 1;
        return v.apply(t, args);
      };
    },
  });
}

/** The store with its queue operations counted (the rest as it is). */
function countedQueue(store: Store, calls: Record<string, number>): Store {
  const queue = counted(store.queue, calls);
  return new Proxy(store, {
    get: (t, name, receiver) => (name === 'queue' ? queue : Reflect.get(t, name, receiver)),
  });
}

describe("a chat's lease across back-to-back runs", () => {
  it('the next message already waits: the lease is kept for its run, read once; given back when none waits', async () => {
    const file = procs.newFile();
    const lease: Record<string, number> = {};
    const queueOps: Record<string, number> = {};
    const a = await procs.proc(file, QUIET, new FakeAgent(), {
      open: async () => countedQueue(await openSqliteStore(file), queueOps),
      port: (p) => counted(p, lease),
    });
    // Counted from here: the queue's start reads every chat's unfinished rows once, as always.
    for (const k of Object.keys(queueOps)) delete queueOps[k];
    // Replies are not sent here: a send under way holds the lease too, and would bridge the runs.
    a.queue.deliverer.stop();
    const ids: number[] = [];
    for (const [i, text] of ['one', 'two'].entries()) {
      const sent = await a.queue.handleInbound(inbound({ messageId: `k${i}`, text }));
      if (sent.type !== 'stored') throw new Error('not stored');
      ids.push(sent.inboxId);
      if (i === 0) await a.agent.untilCalls(1);
    }
    a.agent.pending[0]?.finish(ok('first'));
    await a.agent.untilCalls(2);
    // Two runs, one take of the lease, no give-back between them, and one read of what the chat left.
    expect({
      acquireChat: lease.acquireChat ?? 0,
      releaseChat: lease.releaseChat ?? 0,
      unfinished: queueOps.unfinished ?? 0,
    }).toEqual({ acquireChat: 1, releaseChat: 0, unfinished: 1 });
    // Both runs claimed under one fence: the same holder and epoch.
    const rows = await Promise.all(ids.map((id) => a.store.queue.message(id)));
    const fence = a.owner.fence(CHAT);
    expect(fence).toBeDefined();
    for (const r of rows) expect(r).toMatchObject({ owner: a.owner.id, leaseEpoch: fence?.epoch });

    a.agent.pending[0]?.finish(ok('second'));
    await a.queue.whenIdle();
    expect(await Promise.all(ids.map((id) => a.store.repliesFor(`in:${id}`)))).toEqual([
      [{ status: 'pending' }],
      [{ status: 'pending' }],
    ]);
    // Nothing waits: the lease was given back (another process may take the chat now).
    expect(a.owner.fence(CHAT)).toBeUndefined();
    const other = await a.store.ownership.acquireChat(CHAT, 'another-process', Date.now(), 30_000);
    expect(other.type).toBe('granted');
  });
});

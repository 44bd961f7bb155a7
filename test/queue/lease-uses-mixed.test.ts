// One process sharing a chat's lease among its uses, in every order they may come: user runs that
// keep the lease for the next run (or give it back, or have it given back for them as the queue
// closes), system runs and deliveries beside them, each a few store turns long, over a port that
// answers a turn later (as PostgreSQL, or test:deferred). While any use is out, the chat's lease is
// this process's under the epoch that use carries: a process alone on its store never gives back a
// lease a run still writes with, so a system run's fenced finish is never refused there. Seeded.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatKey } from '../../src/core/types.js';
import { type OwnershipTimings, ProcessOwner } from '../../src/queue/process-owner.js';
import { deferredPort } from '../../src/store/deferred.js';
import type { Fence } from '../../src/store/ownership.js';
import { openSqliteStore, type Store } from '../../src/store/sqlite/open.js';
import { tempDir } from '../helpers/tmp.js';
import { memoryLog } from './helpers.js';

const CHAT: ChatKey = 'console:local';
const QUIET: OwnershipTimings = { leaseMs: 30_000, renewMs: 3_600_000, pollMs: 3_600_000 };

let store: Store | undefined;
let owner: ProcessOwner | undefined;
afterEach(async () => {
  await owner?.stop();
  await store?.close();
  owner = store = undefined;
});

/** A small seeded generator (mulberry32): a failing seed replays. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

describe("a chat lease's uses in one process", () => {
  it('while any use is out, the lease is held under its epoch; once none is, it is given back', async () => {
    store = await openSqliteStore(join(tempDir('aw-lease-mixed-'), 'agentwire.db'));
    const port = deferredPort(store.ownership);
    owner = await ProcessOwner.start(port, { role: 'test', fingerprint: 'f' }, QUIET, memoryLog().log);
    const o = owner;
    const ownership = store.ownership;
    const broken: string[] = [];
    /** The lease as the store has it: still ours, under `fence`? */
    const check = async (fence: Fence, who: string) => {
      const others = await ownership.acquireChat(CHAT, 'probe', Date.now(), 1);
      if (others.type === 'granted') {
        broken.push(`${who}: the lease was free`);
        await ownership.releaseChat(others.fence);
      } else if (others.holder !== o.id || o.fence(CHAT)?.epoch !== fence.epoch)
        broken.push(`${who}: epoch ${fence.epoch} no longer the lease`);
    };
    for (let seed = 1; seed <= 40; seed++) {
      const rnd = random(seed);
      const pause = () => turns(Math.floor(rnd() * 6));
      // One user run at a time (the run slot), each keeping the lease for the next when one waits.
      const userRuns = async (n: number) => {
        let kept = false;
        for (let i = 0; i < n; i++) {
          const t = await o.take(CHAT, { forRun: true });
          if (!t) throw new Error('not granted');
          await pause();
          await check(t.fence, `seed ${seed} run ${i}`);
          // A next message waits (after the last run: one the closing queue will not run).
          kept = rnd() < 0.6 && (await o.keep(CHAT, t.fence));
          if (!kept) await o.drop(CHAT, t.fence);
          await pause();
        }
        // The queue closing with a kept use and no run to take it.
        if (kept) await o.unkeep(CHAT);
      };
      const sideUse = async (who: string) => {
        await pause();
        const t = await o.take(CHAT);
        if (!t) throw new Error('not granted');
        await pause();
        await check(t.fence, `seed ${seed} ${who}`);
        await o.drop(CHAT, t.fence);
      };
      await Promise.all([
        userRuns(1 + Math.floor(rnd() * 4)),
        ...Array.from({ length: 1 + Math.floor(rnd() * 4) }, (_, i) => sideUse(`use ${i}`)),
      ]);
      // Every use ended: the lease was given back.
      expect(o.fence(CHAT)).toBeUndefined();
      const after = await ownership.acquireChat(CHAT, 'probe', Date.now(), 1);
      expect(after.type).toBe('granted');
      if (after.type === 'granted') await ownership.releaseChat(after.fence);
    }
    expect(broken).toEqual([]);
  });
});

// The chat lease costs the message path as few store round trips as fencing allows: a send checks
// the lease with the store only when the last grant or renewal is a third of a lease old (a process
// paused past its lease still asks, and is told it moved), and a kick that finds nothing to send
// takes no lease at all. Real SQLite in a temp folder; the ownership port is the real one, counted.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatKey } from '../../src/core/types.js';
import { Deliverer } from '../../src/queue/delivery.js';
import { type OwnershipTimings, ProcessOwner } from '../../src/queue/process-owner.js';
import type { OwnershipStore } from '../../src/store/ownership.js';
import { openSqliteStore, type Store } from '../../src/store/sqlite/open.js';
import { FakeChannel, memoryLog } from './helpers.js';

const CHAT: ChatKey = 'console:local';
/** Timers that never fire during a test: every store call here is one the test made happen. */
const QUIET: OwnershipTimings = { leaseMs: 30_000, renewMs: 3_600_000, pollMs: 3_600_000 };

let dir: string | undefined;
const stores: Store[] = [];
const owners: ProcessOwner[] = [];

afterEach(async () => {
  for (const o of owners.splice(0)) await o.stop();
  for (const s of stores.splice(0)) await s.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** The real port, with a count of each method's calls. */
function counted(port: OwnershipStore): { port: OwnershipStore; calls: Record<string, number> } {
  const calls: Record<string, number> = {};
  const wrapped = new Proxy(port, {
    get(target, name, receiver) {
      const v = Reflect.get(target, name, receiver);
      if (typeof v !== 'function') return v;
      return (...args: unknown[]) => {
        calls[String(name)] = (calls[String(name)] ?? 0) + 1;
        return v.apply(target, args);
      };
    },
  });
  return { port: wrapped, calls };
}

async function process_(file: string, clock: () => number) {
  const store = await openSqliteStore(file);
  stores.push(store);
  const { port, calls } = counted(store.ownership);
  const owner = await ProcessOwner.start(
    port,
    { role: 'test', fingerprint: 'f' },
    QUIET,
    memoryLog().log,
    clock,
  );
  owners.push(owner);
  return { store, owner, calls };
}

const newFile = () => {
  dir = mkdtempSync(join(tmpdir(), 'aw-lease-trips-'));
  return join(dir, 'agentwire.db');
};

describe('ProcessOwner.holds', () => {
  it('trusts a grant younger than a third of the lease, asks the store after that, and sees a lease that moved', async () => {
    let t = 1_000_000;
    const clock = () => t;
    const file = newFile();
    const a = await process_(file, clock);
    const lease = await a.owner.take(CHAT);
    if (!lease) throw new Error('not granted');
    t += 9_999;
    expect(await a.owner.holds(lease.fence)).toBe(true);
    expect(a.calls.renewChat ?? 0).toBe(0);
    t += 2;
    expect(await a.owner.holds(lease.fence)).toBe(true);
    expect(a.calls.renewChat).toBe(1);
    // Renewed just now: trusted again until a third of a lease later.
    expect(await a.owner.holds(lease.fence)).toBe(true);
    expect(a.calls.renewChat).toBe(1);
    // A is paused past its lease; B takes the chat. A wakes: it asks, and is told no.
    t += 30_001;
    const b = await process_(file, clock);
    const taken = await b.owner.take(CHAT);
    expect(taken?.fence.epoch).toBe(lease.fence.epoch + 1);
    expect(await a.owner.holds(lease.fence)).toBe(false);
    expect(a.calls.renewChat).toBe(2);
  });
});

describe('Deliverer with chat leases', () => {
  it('a kick with nothing to send takes no lease; one with a reply takes it once and gives it back', async () => {
    const file = newFile();
    const a = await process_(file, Date.now);
    const channel = new FakeChannel();
    const deliverer = new Deliverer(
      a.store.queue,
      new Map([['console', channel]]),
      memoryLog().log,
      Date.now,
      { retryForMs: 10_000, backoffMs: () => 1, waitMs: 5 },
      1000,
      a.owner,
    );
    try {
      deliverer.kick(CHAT);
      await deliverer.idle();
      expect(a.calls.acquireChat ?? 0).toBe(0);
      expect(a.calls.releaseChat ?? 0).toBe(0);
      const w = await a.store.queue.enqueueReply(
        CHAT,
        'sys:one',
        [{ type: 'text', text: 'hello' }],
        Date.now(),
      );
      expect(w.ok).toBe(true);
      deliverer.kick(CHAT);
      await channel.untilSent(1);
      await deliverer.idle();
      expect(channel.texts()).toEqual(['hello']);
      expect(a.calls.acquireChat).toBe(1);
      expect(a.calls.releaseChat).toBe(1);
      expect(await a.store.queue.nextUnsent(CHAT)).toBeUndefined();
    } finally {
      deliverer.stop();
    }
  });
});

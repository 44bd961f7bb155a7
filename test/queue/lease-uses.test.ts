// A chat's lease counts its uses (a run, a system run, a delivery, a use kept for the next run), and
// each use ends under the fence it was taken with. A process that lost the lease (paused past it,
// taken over) and later took the chat again holds a new epoch: a use of the old epoch ending late
// (the aborted run's drop, or its keep for a next run) must not end or keep a use of the new one,
// else the lease is given back under a system run still working with it, whose fenced finish is
// then refused. Real SQLite ownership port, two owners in this process, a clock the test moves.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatKey } from '../../src/core/types.js';
import { type OwnershipTimings, ProcessOwner } from '../../src/queue/process-owner.js';
import { openSqliteStore, type Store } from '../../src/store/sqlite/open.js';
import { tempDir } from '../helpers/tmp.js';
import { memoryLog } from './helpers.js';

const CHAT: ChatKey = 'console:local';
/** Rounds only when the test calls tick(); a lease of 1 s on the test's clock. */
const TIMINGS: OwnershipTimings = { leaseMs: 1000, renewMs: 300, pollMs: 3_600_000 };

let store: Store | undefined;
const owners: ProcessOwner[] = [];
afterEach(async () => {
  for (const o of owners.splice(0)) await o.stop().catch(() => undefined);
  await store?.close();
  store = undefined;
});

async function twoOwners() {
  const opened = await openSqliteStore(join(tempDir('aw-lease-uses-'), 'agentwire.db'));
  store = opened;
  let t = 1_000_000;
  const clock = {
    now: () => t,
    set: (at: number) => {
      t = at;
    },
  };
  const start = () =>
    ProcessOwner.start(
      opened.ownership,
      { role: 'test', fingerprint: 'f' },
      TIMINGS,
      memoryLog().log,
      clock.now,
    );
  const a = await start();
  const b = await start();
  owners.push(a, b);
  return { a, b, clock, ownership: opened.ownership };
}

/**
 * A takes the chat for a run; paused past its lease, B takes the chat and gives it back; A's round
 * finds its lease lost, and A takes the chat again (a system run): epoch 3. Returns both fences.
 */
async function lostAndTakenAgain() {
  const { a, b, clock, ownership } = await twoOwners();
  const run = await a.take(CHAT, { forRun: true });
  if (!run) throw new Error('A got no lease');
  clock.set(1_000_000 + 2 * TIMINGS.leaseMs);
  const taken = await b.take(CHAT);
  expect(taken?.fence.epoch).toBe(2);
  await b.drop(CHAT);
  await a.tick();
  expect(a.fence(CHAT)).toEqual(run.fence);
  const system = await a.take(CHAT);
  if (!system) throw new Error('A got no lease again');
  expect(system).toMatchObject({ fresh: true, fence: { epoch: 3 } });
  return { a, b, ownership, clock, old: run.fence, now: system.fence };
}

describe("a chat lease's uses end under their own fence", () => {
  it("a late drop of the lost epoch's run does not give back the new epoch a system run holds", async () => {
    const { a, ownership, clock, old, now } = await lostAndTakenAgain();
    // The run of epoch 1 ends now (it was aborted when the lease was lost).
    await a.drop(CHAT, old);
    expect(a.fence(CHAT)).toEqual(now);
    expect(await a.holds(now)).toBe(true);
    // Nobody else may take the chat: the system run's lease is still held.
    expect((await ownership.acquireChat(CHAT, 'someone-else', clock.now(), 1000)).type).toBe('held');
    // The system run's own drop gives it back.
    await a.drop(CHAT, now);
    expect(a.fence(CHAT)).toBeUndefined();
    expect((await ownership.acquireChat(CHAT, 'someone-else', clock.now(), 1000)).type).toBe('granted');
  });

  it("a late keep of the lost epoch's run keeps nothing of the new epoch", async () => {
    const { a, ownership, clock, old, now } = await lostAndTakenAgain();
    expect(await a.keep(CHAT, old)).toBe(false);
    await a.drop(CHAT, old);
    // The system run ends: its use was the only one, so the lease is given back.
    await a.drop(CHAT, now);
    expect(a.fence(CHAT)).toBeUndefined();
    expect((await ownership.acquireChat(CHAT, 'someone-else', clock.now(), 1000)).type).toBe('granted');
  });

  it('uses of one epoch still count as before: the last drop gives the lease back', async () => {
    const { a, ownership, clock } = await twoOwners();
    const run = await a.take(CHAT, { forRun: true });
    const delivery = await a.take(CHAT);
    if (!run || !delivery) throw new Error('no lease');
    expect(delivery.fence).toEqual(run.fence);
    expect(await a.keep(CHAT, run.fence)).toBe(true);
    const next = await a.take(CHAT, { forRun: true });
    expect(next).toMatchObject({ fresh: false, fence: run.fence });
    await a.drop(CHAT, delivery.fence);
    expect(await a.holds(run.fence)).toBe(true);
    await a.drop(CHAT, run.fence);
    expect((await ownership.acquireChat(CHAT, 'someone-else', clock.now(), 1000)).type).toBe('granted');
  });
});

// ProcessOwner with a store that pushes notifications (the ownership port's optional `watch`, as
// PostgreSQL's LISTEN/NOTIFY): a ring makes it read at once; without a ring it reads only with its
// renewal rounds (the safety net for a lost push), not on every tick; a store without pushes is read
// on every tick as before. Two owners on one SQLite file; the clock and the ticks are the test's.
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type OwnershipTimings, ProcessOwner } from '../../src/queue/process-owner.js';
import type { OwnershipStore } from '../../src/store/ownership.js';
import { openSqliteStore, type Store } from '../../src/store/sqlite/open.js';
import { tempDir } from '../helpers/tmp.js';
import { memoryLog } from './helpers.js';

/** The timer never fires during a test: every round is a `tick()` the test calls. */
const TIMINGS: OwnershipTimings = { leaseMs: 30_000, renewMs: 10_000, pollMs: 3_600_000 };

const owners: ProcessOwner[] = [];
const stores: Store[] = [];
afterEach(async () => {
  for (const o of owners.splice(0)) await o.stop();
  for (const s of stores.splice(0)) await s.close();
});

async function setup(pushes: boolean) {
  const file = join(tempDir('aw-owner-push-'), 'agentwire.db');
  const clock = { now: 1_700_000_000_000 };
  const rings: (() => void)[] = [];
  const open = async (port: (s: Store) => OwnershipStore) => {
    const store = await openSqliteStore(file);
    stores.push(store);
    const owner = await ProcessOwner.start(
      port(store),
      { role: 'test', fingerprint: 'f' },
      TIMINGS,
      memoryLog().log,
      () => clock.now,
    );
    owners.push(owner);
    return owner;
  };
  const sender = await open((s) => s.ownership);
  const hearer = await open((s) =>
    pushes
      ? {
          ...s.ownership,
          watch: async (ring: () => void) => {
            rings.push(ring);
            return () => undefined;
          },
        }
      : s.ownership,
  );
  const heard: string[] = [];
  hearer.on('chat_ready', (key) => heard.push(key));
  // The first round renews (and reads); from here on a tick within renewMs is not a renewal round.
  await hearer.tick();
  const ring = () => {
    for (const r of rings) r();
  };
  return { sender, hearer, heard, clock, ring };
}

describe('ProcessOwner and a store that pushes notifications', () => {
  it('reads at once when rung, and otherwise only with a renewal round', async () => {
    const { sender, hearer, heard, clock, ring } = await setup(true);
    await sender.notify('chat_ready', 'console:one');
    await hearer.tick();
    expect(heard).toEqual([]);
    ring();
    await vi.waitFor(() => expect(heard).toEqual(['console:one']), { timeout: 2_000, interval: 5 });

    // A push lost: the next renewal round reads it.
    await sender.notify('chat_ready', 'console:two');
    clock.now += TIMINGS.renewMs / 2;
    await hearer.tick();
    expect(heard).toEqual(['console:one']);
    clock.now += TIMINGS.renewMs / 2;
    await hearer.tick();
    expect(heard).toEqual(['console:one', 'console:two']);
  });

  it('without pushes, every tick reads', async () => {
    const { sender, hearer, heard } = await setup(false);
    await sender.notify('chat_ready', 'console:one');
    await hearer.tick();
    expect(heard).toEqual(['console:one']);
  });
});

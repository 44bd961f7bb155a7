// The scheduler's job states are saved under its leader lease (store/job-states.ts `save(…, fence)`):
// two stores on one file, as two processes have. Once the lease moved, the old leader's save is
// refused as a conflict and writes nothing; the new leader's goes through.
import { afterEach, describe, expect, it } from 'vitest';
import type { JobState } from '../../src/core/job-state.js';
import { StoreError } from '../../src/store/errors.js';
import { openStore, type Store } from '../../src/store/open.js';
import { tempDir } from '../helpers/tmp.js';

const state = (lastRunAt: number): JobState => ({
  fingerprint: 'f',
  lastRunAt,
  failureStreak: 0,
  attempts: 0,
  done: false,
});

const open: Store[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});

describe('job states fenced by the scheduler lease', () => {
  it("refuses the old leader's save once the lease moved, and keeps the new leader's", async () => {
    const stateDir = tempDir('aw-leader-');
    const a = await openStore({ engine: 'sqlite', stateDir });
    const b = await openStore({ engine: 'sqlite', stateDir });
    open.push(a, b);
    const ga = await a.ownership.acquireLeader('scheduler', 'A', 1_000, 100);
    if (ga.type !== 'granted') throw new Error('A should lead');
    await a.jobStates.save('heartbeat', state(1), 1_000, ga.fence);
    expect(await b.ownership.acquireLeader('scheduler', 'B', 1_050, 100)).toMatchObject({
      type: 'held',
      holder: 'A',
    });
    // A's lease ran out unrenewed: B takes it under the next epoch.
    const gb = await b.ownership.acquireLeader('scheduler', 'B', 1_200, 100);
    if (gb.type !== 'granted') throw new Error('B should lead');
    expect(gb.fence.epoch).toBe(ga.fence.epoch + 1);
    await b.jobStates.save('heartbeat', state(2), 1_200, gb.fence);
    const late = await a.jobStates.save('heartbeat', state(3), 1_300, ga.fence).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(late).toBeInstanceOf(StoreError);
    expect(late).toMatchObject({ failure: { reason: 'conflict', retryable: false } });
    expect((await a.jobStates.loadAll()).get('heartbeat')?.lastRunAt).toBe(2);
    // Unfenced saves (one process on the store, no lease) still write.
    await a.jobStates.save('other', state(4), 1_300);
    expect((await b.jobStates.loadAll()).get('other')?.lastRunAt).toBe(4);
  });
});

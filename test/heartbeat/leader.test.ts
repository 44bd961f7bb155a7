// The relay's scheduler under the `scheduler` leader lease (heartbeat/leader.ts): two processes on
// one store (two stores on one file, each with its own owner). Only the leader has a running
// scheduler; when its lease runs out unrenewed the other takes over, planning from the job states
// in the store at that moment, and the old leader's saves are refused from then on.
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load.js';
import { resolvePaths } from '../../src/config/paths.js';
import type { Config } from '../../src/config/schema.js';
import { type LedScheduler, ledScheduler } from '../../src/heartbeat/leader.js';
import type { SchedulerStatus } from '../../src/heartbeat/scheduler.js';
import { type OwnershipTimings, ProcessOwner } from '../../src/queue/process-owner.js';
import { StoreError } from '../../src/store/errors.js';
import { openStore, type Store } from '../../src/store/open.js';
import { tempDir } from '../helpers/tmp.js';
import { captureLog, FakeClock, FakeRunner } from './helpers.js';

/** Renewed by the test's own ticks only: a process that stops ticking lets its lease run out. */
const MANUAL: OwnershipTimings = { leaseMs: 300, renewMs: 0, pollMs: 3_600_000 };

function config(text: string): Config {
  const r = parseConfigText(text, 'c.json5', {});
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.config;
}

interface Proc {
  store: Store;
  owner: ProcessOwner;
  led: LedScheduler;
}
const procs: Proc[] = [];
afterEach(async () => {
  for (const p of procs.splice(0)) {
    await p.led.stop();
    await p.owner.stop();
    await p.store.close();
  }
});

async function proc(stateDir: string): Promise<Proc> {
  const store = await openStore({ engine: 'sqlite', stateDir });
  const { log } = captureLog();
  const owner = await ProcessOwner.start(store.ownership, { role: 'relay', fingerprint: 'f' }, MANUAL, log);
  const led = ledScheduler(
    {
      config: config('{heartbeat: {everyMinutes: 30}}'),
      paths: resolvePaths({ AGENTWIRE_HOME: stateDir }),
      env: {},
      log,
      runner: new FakeRunner(new FakeClock(0)),
      defaultTarget: () => 'console:local',
    },
    store.jobStates,
    owner,
  );
  await led.start();
  const p = { store, owner, led };
  procs.push(p);
  return p;
}

async function until(check: () => boolean | Promise<boolean>, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setImmediate(r));
  }
}

const status = async (p: Proc) => (await p.led.methods.schedules?.(undefined)) as SchedulerStatus;

describe('the scheduler on the leader lease', () => {
  it('runs only in the leader; the lease running out hands it over with the stored states', async () => {
    const dir = tempDir('aw-led-');
    const a = await proc(dir);
    const b = await proc(dir);
    await a.owner.tick();
    await until(() => a.led.leading);
    await b.owner.tick();
    expect(b.led.leading).toBe(false);
    await expect(b.led.methods.schedules?.(undefined)).rejects.toThrow(/another process/);
    expect((await status(a)).heartbeat).toMatchObject({ enabled: true });

    // What A's scheduler saved, changed as a run of A would, under A's lease.
    const fenceA = await a.store.ownership.acquireLeader('scheduler', a.owner.id, Date.now(), MANUAL.leaseMs);
    if (fenceA.type !== 'granted') throw new Error('A should lead');
    const saved = (await a.store.jobStates.loadAll()).get('heartbeat');
    if (!saved) throw new Error('A saved no heartbeat state');
    await a.store.jobStates.save('heartbeat', { ...saved, lastRunAt: 123_456 }, Date.now(), fenceA.fence);

    // A stops renewing (paused); B keeps asking and leads once A's lease ran out.
    await until(async () => {
      await b.owner.tick();
      return b.led.leading;
    });
    expect((await status(b)).heartbeat).toMatchObject({ lastAt: 123_456 });
    const late = await a.store.jobStates
      .save('heartbeat', { ...saved, lastRunAt: 1 }, Date.now(), fenceA.fence)
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    expect(late).toBeInstanceOf(StoreError);
    expect((await b.store.jobStates.loadAll()).get('heartbeat')?.lastRunAt).toBe(123_456);
  });
});

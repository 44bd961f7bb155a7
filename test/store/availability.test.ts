// The store's availability watch (store/availability.ts): one event when an operation first finds
// the store unreachable, however many fail after it, and one when it has answered again for the
// settling while with no failure between; a failure for another reason says nothing either way,
// and a flap (one answer between refusals, as a server shutting down gives) stays one outage.
// Over a real SQLite store whose ports are made to fail as a networked store's do; the settling
// timer is Vitest's fake one, moved by hand.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { availabilityWatch } from '../../src/store/availability.js';
import { StoreError, storeFailure } from '../../src/store/errors.js';
import { openStore, type Store } from '../../src/store/open.js';

let store: Store | undefined;
let dir: string | undefined;
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
});
afterEach(async () => {
  vi.useRealTimers();
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  store = undefined;
  dir = undefined;
});

type Mode = 'up' | 'down' | 'conflict';

/** A real store whose `tasks.all` throws and `queue.recordRun` refuses as the mode says. */
async function flakyStore(mode: () => Mode): Promise<Store> {
  dir = mkdtempSync(join(tmpdir(), 'aw-avail-'));
  store = await openStore({ engine: 'sqlite', stateDir: dir });
  const real = store;
  return {
    ...real,
    tasks: {
      ...real.tasks,
      all: async () => {
        if (mode() === 'down') throw new StoreError(storeFailure('unavailable', 'connect ECONNREFUSED'));
        if (mode() === 'conflict') throw new StoreError(storeFailure('conflict', 'lost a race'));
        return real.tasks.all();
      },
    },
    queue: {
      ...real.queue,
      recordRun: async (r) =>
        mode() === 'down' ? storeFailure('unavailable', 'connect ENOENT') : real.queue.recordRun(r),
    },
  };
}

const run = {
  chat: 'console:local',
  agent: 'claude',
  label: 'user',
  startedAt: 1,
  durationMs: 1,
  outcome: 'ok',
};

/** A watch over a flaky store, on the clock `now`, settling 2 s; `seen` is what it said. */
async function watched(mode: () => Mode, now: () => number) {
  const seen: string[] = [];
  const watch = availabilityWatch(
    { down: (m) => seen.push(`down: ${m}`), up: (ms) => seen.push(`up after ${ms} ms`) },
    { now, settleMs: 2000 },
  );
  return { watch, seen, s: watch.store(await flakyStore(mode)) };
}

describe('availabilityWatch', () => {
  it('says down once and up once, through rejections and refusals given as values', async () => {
    let mode: Mode = 'up';
    let t = 1000;
    const { watch, seen, s } = await watched(
      () => mode,
      () => t,
    );

    expect(await s.tasks.all()).toEqual([]);
    mode = 'down';
    await expect(s.tasks.all()).rejects.toThrow('ECONNREFUSED');
    expect(await s.queue.recordRun(run)).toMatchObject({ ok: false, reason: 'unavailable' });
    await expect(s.tasks.all()).rejects.toThrow();
    expect(watch.down()).toBe(true);
    // Another failure while down says nothing about being back.
    mode = 'conflict';
    await expect(s.tasks.all()).rejects.toThrow('lost a race');
    vi.advanceTimersByTime(5000);
    expect(watch.down()).toBe(true);
    t = 4500;
    mode = 'up';
    expect(await s.queue.recordRun(run)).toEqual({ ok: true, value: undefined });
    t = 5000;
    expect(await s.tasks.all()).toEqual([]);
    expect(watch.down()).toBe(false);
    // Back is said once the store has answered for the settling while, timed from its first answer.
    vi.advanceTimersByTime(1999);
    expect(seen).toEqual(['down: connect ECONNREFUSED']);
    vi.advanceTimersByTime(1);
    expect(seen).toEqual(['down: connect ECONNREFUSED', 'up after 3500 ms']);
    // A new outage after that is said again.
    mode = 'down';
    await expect(s.tasks.all()).rejects.toThrow();
    expect(seen).toHaveLength(3);
  });

  it('keeps a flap within the settling while as one outage', async () => {
    let mode: Mode = 'down';
    let t = 0;
    const { seen, s } = await watched(
      () => mode,
      () => t,
    );

    await expect(s.tasks.all()).rejects.toThrow();
    // One statement gets through 19 ms later, then the server refuses again.
    t = 19;
    mode = 'up';
    expect(await s.tasks.all()).toEqual([]);
    vi.advanceTimersByTime(500);
    mode = 'down';
    expect(await s.queue.recordRun(run)).toMatchObject({ ok: false, reason: 'unavailable' });
    vi.advanceTimersByTime(5000);
    expect(seen).toEqual(['down: connect ECONNREFUSED']);
    // Back for good at 9 s: said once, the outage counted from its first refusal.
    t = 9000;
    mode = 'up';
    expect(await s.queue.recordRun(run)).toEqual({ ok: true, value: undefined });
    vi.advanceTimersByTime(2000);
    expect(seen).toEqual(['down: connect ECONNREFUSED', 'up after 9000 ms']);
  });
});

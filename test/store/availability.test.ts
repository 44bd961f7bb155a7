// The store's availability watch (store/availability.ts): one event when an operation first finds
// the store unreachable, however many fail after it, and one when an operation succeeds again;
// a failure for another reason says nothing either way. Over a real SQLite store whose one port
// is made to fail as a networked store does.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { availabilityWatch } from '../../src/store/availability.js';
import { StoreError, storeFailure } from '../../src/store/errors.js';
import { openStore, type Store } from '../../src/store/open.js';

let store: Store | undefined;
let dir: string | undefined;
afterEach(async () => {
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  store = undefined;
  dir = undefined;
});

describe('availabilityWatch', () => {
  it('says down once and up once, through rejections and refusals given as values', async () => {
    dir = mkdtempSync(join(tmpdir(), 'aw-avail-'));
    store = await openStore({ engine: 'sqlite', stateDir: dir });
    const real = store;
    let mode: 'up' | 'down' | 'conflict' = 'up';
    const failing: Store = {
      ...real,
      tasks: {
        ...real.tasks,
        all: async () => {
          if (mode === 'down') throw new StoreError(storeFailure('unavailable', 'connect ECONNREFUSED'));
          if (mode === 'conflict') throw new StoreError(storeFailure('conflict', 'lost a race'));
          return real.tasks.all();
        },
      },
      queue: {
        ...real.queue,
        recordRun: async (r) =>
          mode === 'down' ? storeFailure('unavailable', 'connect ENOENT') : real.queue.recordRun(r),
      },
    };
    const seen: string[] = [];
    let t = 1000;
    const watch = availabilityWatch(
      { down: (m) => seen.push(`down: ${m}`), up: (ms) => seen.push(`up after ${ms} ms`) },
      () => t,
    );
    const s = watch.store(failing);
    const run = {
      chat: 'console:local',
      agent: 'claude',
      label: 'user',
      startedAt: 1,
      durationMs: 1,
      outcome: 'ok',
    };

    expect(await s.tasks.all()).toEqual([]);
    mode = 'down';
    await expect(s.tasks.all()).rejects.toThrow('ECONNREFUSED');
    expect(await s.queue.recordRun(run)).toMatchObject({ ok: false, reason: 'unavailable' });
    await expect(s.tasks.all()).rejects.toThrow();
    expect(watch.down()).toBe(true);
    // Another failure while down says nothing about being back.
    mode = 'conflict';
    await expect(s.tasks.all()).rejects.toThrow('lost a race');
    expect(watch.down()).toBe(true);
    t = 4500;
    mode = 'up';
    expect(await s.queue.recordRun(run)).toEqual({ ok: true, value: undefined });
    expect(await s.tasks.all()).toEqual([]);
    expect(watch.down()).toBe(false);
    expect(seen).toEqual(['down: connect ECONNREFUSED', 'up after 3500 ms']);
  });
});

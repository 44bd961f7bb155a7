// The store away after the agent ran an event (a database down a moment): the answer is held and
// stored once the store is back, the event finished once, its agent not asked again. A failure that
// would repeat is not waited on.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChatKey, SystemRunner, SystemRunOutcome } from '../../src/core/types.js';
import { EventRunner } from '../../src/events/runner.js';
import { systemClock } from '../../src/heartbeat/clock.js';
import { StoreError, storeFailure } from '../../src/store/errors.js';
import type { EventStore, StoredEvent } from '../../src/store/events.js';
import { openSqliteStore, type Store } from '../../src/store/sqlite/open.js';
import { memoryLog, ok } from '../queue/helpers.js';

let dir: string;
let store: Store;
let runner: EventRunner | undefined;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'aw-events-held-'));
  store = await openSqliteStore(join(dir, 'agentwire.db'));
});
afterEach(async () => {
  runner?.stop();
  await runner?.whenIdle();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const CHAT = 'telegram:1' as ChatKey;

async function waitFor(check: () => boolean | Promise<boolean>, ms = 10_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 5));
  }
  return check();
}

/** A SystemRunner whose deliver fails `deliverFails` times with `failure` first. */
class AwayRunner implements SystemRunner {
  readonly runs: string[] = [];
  readonly delivered: string[] = [];
  deliverFails = 0;
  constructor(private readonly failure: () => Error) {}
  async runIfIdle(_chat: ChatKey, prompt: string): Promise<SystemRunOutcome> {
    this.runs.push(prompt);
    return { type: 'ran', result: ok(`reply to ${prompt}`) };
  }
  async deliver(_chat: ChatKey, _key: string, text: string): Promise<void> {
    if (this.deliverFails > 0) {
      this.deliverFails--;
      throw this.failure();
    }
    this.delivered.push(text);
  }
}

/** The store's events, with `finish` failing `fails.n` times first. */
function awayFinish(fails: { n: number }, failure: () => Error): EventStore {
  return {
    ...store.events,
    finish: async (id, outcome, now) => {
      if (fails.n > 0) {
        fails.n--;
        throw failure();
      }
      return store.events.finish(id, outcome, now);
    },
  };
}

async function addOne(prompt: string): Promise<number> {
  const [added] = await store.events.addAll(
    [
      {
        key: `k:${prompt}`,
        source: 'trigger',
        chat: CHAT,
        prompt,
        dueAt: 0,
        orderName: prompt,
        options: '{}',
      },
    ],
    1,
  );
  if (added?.type !== 'added') throw new Error('not added');
  return added.id;
}

const get = async (id: number): Promise<StoredEvent | undefined> => store.events.get(id);

describe('EventRunner, the store away after the run', () => {
  it('holds the answer until the store takes it: delivered once, finished once, the agent asked once', async () => {
    const away = () => new StoreError(storeFailure('unavailable', 'the database is down'));
    const id = await addOne('held');
    const r = new AwayRunner(away);
    r.deliverFails = 2;
    const fails = { n: 2 };
    const logged = memoryLog();
    runner = new EventRunner({
      store: awayFinish(fails, away),
      runner: r,
      clock: systemClock,
      log: logged.log,
    });
    runner.start();
    expect(await waitFor(async () => (await get(id))?.state === 'done')).toBe(true);
    await runner.whenIdle();
    expect(r.runs).toEqual(['held']);
    expect(r.delivered).toEqual(['reply to held']);
    expect(await get(id)).toMatchObject({ state: 'done', outcome: 'sent', attempts: 1 });
    expect(fails.n).toBe(0);
    expect(JSON.stringify(logged.lines)).toContain('the answer waits for it');
  });

  it('a failure that would repeat is not waited on: the event is left begun', async () => {
    const bug = () => new StoreError(storeFailure('other', 'no such column'));
    const id = await addOne('bug');
    const r = new AwayRunner(bug);
    r.deliverFails = 1;
    const logged = memoryLog();
    runner = new EventRunner({ store: store.events, runner: r, clock: systemClock, log: logged.log });
    expect(await runner.runOne((await get(id)) as StoredEvent).catch((e: unknown) => e)).toBeInstanceOf(
      StoreError,
    );
    expect(r.runs).toEqual(['bug']);
    expect(await get(id)).toMatchObject({ state: 'running', attempts: 1 });
    expect(JSON.stringify(logged.lines)).not.toContain('the answer waits for it');
  });
});

// The store away after the agent ran an event (a database down a moment): the answer is held and
// stored once the store is back, the event finished once, its agent not asked again. A failure that
// would repeat is not waited on.
import { describe, expect, it } from 'vitest';
import type { ChatKey, SystemRunner, SystemRunOutcome } from '../../src/core/types.js';
import { StoreError, storeFailure } from '../../src/store/errors.js';
import type { EventStore, StoredEvent } from '../../src/store/events.js';
import { memoryLog, ok } from '../queue/helpers.js';
import { useEventsRig, waitFor } from './rig.js';

const rig = useEventsRig('aw-events-held-');

const CHAT = 'telegram:1' as ChatKey;

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
    ...rig.store.events,
    finish: async (id, outcome, now) => {
      if (fails.n > 0) {
        fails.n--;
        throw failure();
      }
      return rig.store.events.finish(id, outcome, now);
    },
  };
}

async function addOne(prompt: string): Promise<number> {
  const [added] = await rig.store.events.addAll(
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

const get = async (id: number): Promise<StoredEvent | undefined> => rig.store.events.get(id);

describe('EventRunner, the store away after the run', () => {
  it('holds the answer until the store takes it: delivered once, finished once, the agent asked once', async () => {
    const away = () => new StoreError(storeFailure('unavailable', 'the database is down'));
    const id = await addOne('held');
    const r = new AwayRunner(away);
    r.deliverFails = 2;
    const fails = { n: 2 };
    const logged = memoryLog();
    const runner = rig.runnerFor(r, { store: awayFinish(fails, away), log: logged.log });
    runner.start();
    expect(await waitFor(async () => (await get(id))?.state === 'done', 10_000)).toBe(true);
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
    const runner = rig.runnerFor(r, { log: logged.log });
    expect(await runner.runOne((await get(id)) as StoredEvent).catch((e: unknown) => e)).toBeInstanceOf(
      StoreError,
    );
    expect(r.runs).toEqual(['bug']);
    expect(await get(id)).toMatchObject({ state: 'running', attempts: 1 });
    expect(JSON.stringify(logged.lines)).not.toContain('the answer waits for it');
  });
});

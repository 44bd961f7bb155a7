// A read of the stored events can be older than the runs it shows: a drain may finish an event while
// another look's read is on its way (a store that answers later than at once, or another process).
// Such a read runs nothing twice and gives nothing up: the begin is claimed against the row as read.
import { describe, expect, it } from 'vitest';
import type { ChatKey, SystemRunner, SystemRunOutcome } from '../../src/core/types.js';
import type { EventStore, StoredEvent } from '../../src/store/events.js';
import { ok } from '../queue/helpers.js';
import { useEventsRig, waitFor } from './rig.js';

const rig = useEventsRig('aw-events-stale-');

const CHAT = 'telegram:1' as ChatKey;

/** Runs that wait for `go()` while `hold` is set; what was run and delivered. */
class HeldRunner implements SystemRunner {
  readonly runs: string[] = [];
  readonly delivered: string[] = [];
  hold = false;
  private waiting: (() => void)[] = [];
  async runIfIdle(_chat: ChatKey, prompt: string): Promise<SystemRunOutcome> {
    this.runs.push(prompt);
    if (this.hold) await new Promise<void>((r) => this.waiting.push(r));
    return { type: 'ran', result: ok(`reply to ${prompt}`) };
  }
  go(): void {
    this.hold = false;
    for (const r of this.waiting.splice(0)) r();
  }
  async deliver(_chat: ChatKey, _key: string, text: string): Promise<void> {
    this.delivered.push(text);
  }
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

const get = async (id: number): Promise<StoredEvent> => {
  const e = await rig.store.events.get(id);
  if (!e) throw new Error(`no event ${id}`);
  return e;
};

describe('EventRunner, reads older than the runs', () => {
  it('a look whose read was taken while the event ran does not run it again once it is done', async () => {
    const id = await addOne('only');
    // open() answers with what it read, but only once the gate opens (when held).
    let held: Promise<void> | undefined;
    let read = false;
    const events: EventStore = {
      ...rig.store.events,
      open: async () => {
        const rows = await rig.store.events.open();
        read = true;
        if (held) await held;
        return rows;
      },
    };
    const r = new HeldRunner();
    r.hold = true;
    const runner = rig.runnerFor(r, { store: events });
    runner.start();
    expect(await waitFor(() => r.runs.length === 1)).toBe(true);
    // Another look reads while the run is on (the event shows as running) and is held there.
    let open!: () => void;
    held = new Promise((resolve) => {
      open = resolve;
    });
    read = false;
    runner.kick();
    expect(await waitFor(() => read)).toBe(true);
    r.go();
    expect(await waitFor(async () => (await get(id)).state === 'done')).toBe(true);
    open();
    held = undefined;
    await runner.whenIdle();
    expect(r.runs).toEqual(['only']);
    expect(r.delivered).toEqual(['reply to only']);
    expect(await get(id)).toMatchObject({ state: 'done', outcome: 'sent', attempts: 1 });
  });

  it('an event read as open but done since is skipped: not run, not given up, nothing sent', async () => {
    const r = new HeldRunner();
    const runner = rig.runnerFor(r);
    for (const attempts of [0, 1, 2]) {
      const id = await addOne(`done-${attempts}`);
      const seen = await get(id);
      for (let i = 0; i < attempts; i++) await rig.store.events.begin(id, await get(id));
      const stale = attempts === 0 ? seen : await get(id);
      await rig.store.events.finish(id, 'sent', 2);
      expect(await runner.runOne(stale)).toBe('skipped');
      expect(await get(id)).toMatchObject({ state: 'done', outcome: 'sent', attempts });
    }
    expect(r.runs).toEqual([]);
    expect(r.delivered).toEqual([]);
  });

  it('an event begun by another look since the read is left to it', async () => {
    const r = new HeldRunner();
    const runner = rig.runnerFor(r);
    const id = await addOne('twice-read');
    const seen = await get(id);
    expect(await rig.store.events.begin(id, seen)).toMatchObject({ state: 'running', attempts: 1 });
    expect(await runner.runOne(seen)).toBe('skipped');
    // A release by a look whose begin was not the last one leaves the row as the last begin left it.
    await rig.store.events.release(id, 0);
    expect(await get(id)).toMatchObject({ state: 'running', attempts: 1 });
    expect(r.runs).toEqual([]);
  });
});

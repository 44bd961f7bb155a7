// An event whose chat lease moves to another process while its agent runs (this process paused past
// the lease): the store refuses the run's session, and the process that lost the chat sends nothing
// and never asks its agent again (it once threw there, the drain ended on the throw, and the next
// look ran the begun event "once more" in the same process). The event is left begun, as after a
// kill: the next process to run events tries it once more. Real queue, owners and SQLite store. So
// too any event whose agent ran here and whose writes after failed for good: not asked again here.
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatKey, SystemRunner, SystemRunOutcome } from '../../src/core/types.js';
import { EventRunner } from '../../src/events/runner.js';
import { systemClock } from '../../src/heartbeat/clock.js';
import type { OwnershipTimings } from '../../src/queue/process-owner.js';
import { memoryLog, ok } from '../queue/helpers.js';
import { useProcs } from '../queue/procs-rig.js';

const CHAT: ChatKey = 'console:local';
/** A process that never renews (as if paused): its lease runs out after 150 ms. */
const PAUSED: OwnershipTimings = { leaseMs: 150, renewMs: 3_600_000, pollMs: 3_600_000 };
/** Rounds only when a test asks: every lease call here is one the test or the queue made. */
const QUIET: OwnershipTimings = { leaseMs: 30_000, renewMs: 3_600_000, pollMs: 3_600_000 };

const procs = useProcs();
const runners: EventRunner[] = [];
afterEach(async () => {
  for (const r of runners.splice(0)) {
    r.stop();
    await r.whenIdle();
  }
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function eventRunner(p: Awaited<ReturnType<typeof procs.proc>>): EventRunner {
  const r = new EventRunner({
    store: p.store.events,
    runner: p.queue,
    clock: systemClock,
    log: memoryLog().log,
    busyRetryMs: 10,
  });
  runners.push(r);
  r.start();
  return r;
}

describe('an event whose chat lease moved while its agent ran', () => {
  it('is not run again by the process that lost the chat, sends nothing, and is left begun for the next', async () => {
    const file = procs.newFile();
    const a = await procs.proc(file, PAUSED);
    const b = await procs.proc(file, QUIET);
    const [added] = await a.store.events.addAll(
      [
        {
          key: 'k:1',
          source: 'trigger',
          chat: CHAT,
          prompt: 'ask once',
          dueAt: 0,
          orderName: 'a',
          options: '{}',
        },
      ],
      Date.now(),
    );
    if (added?.type !== 'added') throw new Error('not added');
    const runnerA = eventRunner(a);
    await a.agent.untilCalls(1);
    const fenceA = a.owner.fence(CHAT);
    expect(fenceA?.epoch).toBe(1);
    // A's lease runs out; B takes the chat (epoch 2) and gives it back: the chat is free again.
    await sleep(PAUSED.leaseMs + 50);
    expect((await b.owner.take(CHAT))?.fence.epoch).toBe(2);
    await b.owner.drop(CHAT);

    // A second run here would answer at once (so the count below shows it, not a hang).
    a.agent.auto = () => ok('second answer');
    a.agent.pending[0]?.finish(ok('late answer'));
    // Every look A's runner takes now (a kick, its busy retries) finds nothing of A's to run.
    for (let i = 0; i < 5; i++) {
      await sleep(30);
      runnerA.kick();
    }
    await runnerA.whenIdle();
    await a.queue.whenIdle();
    expect(a.agent.calls).toHaveLength(1);
    expect(await a.store.events.get(added.id)).toMatchObject({ state: 'running', attempts: 1 });
    expect(await a.store.queue.nextUnsent(CHAT)).toBeUndefined();
    expect(a.channel.texts()).toEqual([]);

    // The next process to run events (here B, its runner as after A stopped) tries it once more.
    runnerA.stop();
    b.agent.auto = () => ok('answer from B');
    eventRunner(b);
    await b.channel.untilSent(1);
    expect(b.channel.texts()).toEqual(['answer from B']);
    expect(await b.store.events.get(added.id)).toMatchObject({ state: 'done', outcome: 'sent' });
    expect(a.agent.calls).toHaveLength(1);
  });
});

describe('an event whose agent ran here', () => {
  it('is not run again by this process when a write after the run failed for good', async () => {
    const file = procs.newFile();
    const a = await procs.proc(file, QUIET);
    const [added] = await a.store.events.addAll(
      [{ key: 'k:2', source: 'trigger', chat: CHAT, prompt: 'ask', dueAt: 0, orderName: 'a', options: '{}' }],
      Date.now(),
    );
    if (added?.type !== 'added') throw new Error('not added');
    const runs: string[] = [];
    const runner: SystemRunner = {
      async runIfIdle(_chat, prompt): Promise<SystemRunOutcome> {
        runs.push(prompt);
        return { type: 'ran', result: ok('the answer') };
      },
      // Not a passing refusal (those are held and tried again): the drain ends on it.
      deliver: async () => {
        throw new Error('a bug in the reply path');
      },
    };
    const r = new EventRunner({ store: a.store.events, runner, clock: systemClock, log: memoryLog().log });
    runners.push(r);
    r.start();
    for (let i = 0; i < 5; i++) {
      await sleep(30);
      r.kick();
    }
    await r.whenIdle();
    expect(runs).toEqual(['ask']);
    expect(await a.store.events.get(added.id)).toMatchObject({ state: 'running', attempts: 1 });
  });
});

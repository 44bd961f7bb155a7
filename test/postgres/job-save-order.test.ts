// A job's state saves reach PostgreSQL in the order the job made them. Each save is a transaction
// on any connection of the pool, so two made back to back could commit in either order; the next
// leader plans from what is stored, so an older state left stored made it fire a due time again.
// Here the jobs run as a leader does (real store, saves fenced by the `scheduler` lease), with a
// runner that answers at once so the saves are made microseconds apart, then a next leader plans
// from the store.
import { afterEach, describe, expect, it } from 'vitest';
import type { JobState } from '../../src/core/job-state.js';
import { HeartbeatJob } from '../../src/heartbeat/heartbeat-job.js';
import type { JobDeps } from '../../src/heartbeat/jobs.js';
import { ScheduleJob } from '../../src/heartbeat/schedule-job.js';
import { resolveHeartbeat, resolveSchedule } from '../../src/heartbeat/settings.js';
import { HEARTBEAT_JOB } from '../../src/heartbeat/state.js';
import type { Fence } from '../../src/store/ownership.js';
import { openPostgresStore } from '../../src/store/postgres/store.js';
import type { Store } from '../../src/store/store.js';
import { captureLog, FakeClock, FakeRunner } from '../heartbeat/helpers.js';
import { freshDatabase } from '../support/postgres-db.js';

const CHAT = 'twilio:+15551234567';
const NOW = Date.UTC(2026, 10, 28, 12, 0, 0);
const ROUNDS = 15;

let store: Store | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
});

/** A leader's job dependencies on `s`, fenced by `fence`; `saved()` waits for every save made. */
async function leaderDeps(s: Store, fence: Fence, runner: FakeRunner, clock: FakeClock) {
  const made: Promise<void>[] = [];
  const deps: JobDeps = {
    runner,
    clock,
    stored: await s.jobStates.loadAll(),
    states: {
      save: (job: string, state: JobState, at: number) => {
        const p = s.jobStates.save(job, state, at, fence);
        made.push(p);
        return p;
      },
    },
    log: captureLog().log,
    runCheck: async () => ({ type: 'failed', message: 'no checks here' }),
  };
  // Every save made so far, and those made after them (a job's saves may wait for its earlier ones).
  const saved = async () => {
    for (let n = -1; n !== made.length; ) {
      n = made.length;
      await Promise.allSettled(made);
      await new Promise((r) => setImmediate(r));
    }
  };
  return { deps, saved };
}

describe('job state saves on PostgreSQL, made back to back', () => {
  it('keep the last: a one-shot that ran is done for the next leader, a skipped heartbeat tick moves on', async () => {
    store = await openPostgresStore(await freshDatabase());
    const lead = await store.ownership.acquireLeader('scheduler', 'A', NOW, 3_600_000);
    if (lead.type !== 'granted') throw new Error('A should lead');
    const clock = new FakeClock(NOW);

    const stale: string[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      // A one-shot due now: begun and finished within microseconds (the runner answers at once).
      const r = resolveSchedule({
        id: `once-${i}`,
        at: new Date(NOW - 1_000).toISOString(),
        target: CHAT,
        prompt: 'p',
        checkTimeoutSeconds: 60,
      });
      if (!r.ok) throw new Error(r.error);
      const runner = new FakeRunner(clock);
      const a = await leaderDeps(store, lead.fence, runner, clock);
      await new ScheduleJob(a.deps, r.spec).fire(NOW);
      await a.saved();
      expect(runner.runs).toHaveLength(1);
      // The next leader plans from the store: nothing left to fire.
      const b = await leaderDeps(store, lead.fence, new FakeRunner(clock), clock);
      if (new ScheduleJob(b.deps, r.spec).wakeAt() !== undefined) stale.push(`once-${i}`);
      await b.saved();
    }

    const hb = resolveHeartbeat({ everyMinutes: 1, target: CHAT });
    if (hb.type !== 'on') throw new Error('heartbeat settings');
    for (let i = 0; i < ROUNDS; i++) {
      // A leader takes over with a heartbeat tick due; the chat is busy, so it is skipped at once.
      const due = NOW - 1_000 + i;
      await store.jobStates.save(
        HEARTBEAT_JOB,
        { fingerprint: `every:${hb.everyMs}`, nextRunAt: due, failureStreak: 0, attempts: 0, done: false },
        NOW,
        lead.fence,
      );
      const runner = new FakeRunner(clock);
      runner.busy.add(CHAT);
      const a = await leaderDeps(store, lead.fence, runner, clock);
      const job = new HeartbeatJob(a.deps, hb, () => undefined);
      expect(job.wakeAt()).toBe(due);
      await job.fire(NOW);
      await a.saved();
      const b = await leaderDeps(store, lead.fence, new FakeRunner(clock), clock);
      if (new HeartbeatJob(b.deps, hb, () => undefined).wakeAt() !== due + hb.everyMs)
        stale.push(`tick ${i}`);
      // Its plan is saved too (as a new leader does): written before the next round starts.
      await b.saved();
    }
    expect(stale, 'due times the next leader would fire again').toEqual([]);
  });
});

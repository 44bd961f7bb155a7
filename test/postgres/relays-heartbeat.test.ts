// The heartbeat across three built relays on one PostgreSQL database, through SIGKILLs of the
// `scheduler` leader: each due time fires once (a run cut by a kill is done again by the next
// leader, as for one-shot schedules), each reply is sent once with HEARTBEAT_OK removed, a silent
// answer sends nothing, and of the due times missed while no relay ran only the latest fires
// (docs/heartbeat.md, "Restarts and missed runs"). The heartbeat's shortest interval is one minute,
// so the test writes the state a relay stopped for over two intervals would have left (its
// next due time in the past) and kills the leader: the next one plans from it, and the next due
// time comes 50 s later instead of a minute. Needs `npm run build`.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MAIN } from '../e2e/helpers.js';
import { freshDatabase, queryRows } from '../support/postgres-db.js';
import { type Fleet, makeFleet, schedulerLeader } from '../support/relay-fleet.js';

const CHAT = 'twilio:+15551234567';
const MINUTE = 60_000;

let fleet: Fleet | undefined;
let dir: string | undefined;
afterEach(async () => {
  await fleet?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  fleet = undefined;
  dir = undefined;
});

interface StateRow {
  next_run_at: number | null;
  last_run_at: number | null;
  last_outcome: string | null;
  updated_at: number;
}

/** Polls `check` every 50 ms for at most `ms`; fails naming `what` (read then) when it never held. */
async function until<T>(
  what: string | (() => string),
  ms: number,
  check: () => Promise<T | undefined> | T | undefined,
) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`waited ${ms} ms for ${typeof what === 'string' ? what : what()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('three relays, the scheduler leader SIGKILLed after heartbeats and mid-run', () => {
  it('fires each heartbeat due time once, sends each reply once, and catches up only the latest missed', async () => {
    expect(existsSync(MAIN), 'build first: npm run build').toBe(true);
    const url = await freshDatabase();
    dir = mkdtempSync(join(tmpdir(), 'aw-hb-'));
    const answer = join(dir, 'answer');
    // The fake agent answers with this file's text; its first run sleeps (and is killed meanwhile).
    writeFileSync(answer, 'news one — HEARTBEAT_OK');
    const prompt = `check in sleeponce:30000 answerfile:${answer}`;
    const t0 = Date.now();
    const f = await makeFleet(url, 3, {
      queue: { leaseSeconds: 3 },
      heartbeat: { everyMinutes: 1, target: CHAT, session: 'fresh', prompt },
    });
    fleet = f;
    // One relay first: it plans the heartbeat and saves that; the other two start once the state is set.
    await f.start(0);
    // BIGINT columns read as numbers (a plain client reads them as strings). The last read is shown
    // by a failing wait.
    let lastState: StateRow | undefined;
    const state = async () => {
      [lastState] = await queryRows<StateRow>(
        url,
        `SELECT next_run_at::float8 AS next_run_at, last_run_at::float8 AS last_run_at, last_outcome,
                updated_at::float8 AS updated_at FROM schedule_state WHERE job = 'heartbeat'`,
      );
      return lastState;
    };
    const lead = () =>
      until('a relay leading `scheduler`', 30_000, async () => {
        const i = await schedulerLeader(f, url);
        return i >= 0 ? i : undefined;
      });
    const runs = () => f.events().filter((e) => e.ev === 'start' && e.prompt?.includes('check in'));
    const sent = () => f.fake.created.filter((m) => m.to === CHAT.slice('twilio:'.length)).map((m) => m.body);
    const report = () =>
      JSON.stringify({
        due1,
        due2,
        runs: runs().map((e) => ({ t: e.t, ppid: e.ppid })),
        sent: sent(),
        killed: [...f.killed],
        state: lastState,
      });
    // Killed relays are started again at once, in the background (a relay still starting leads
    // nothing the test looks for: it is not in `f.procs` yet).
    const restarts: Promise<unknown>[] = [];
    const kill = async (i: number) => {
      await f.kill(i);
      const restart = f.start(i);
      // Awaited at the end; marked handled now, so a test that fails before then reports only its own error.
      restart.catch(() => undefined);
      restarts.push(restart);
      return Date.now();
    };

    // The first leader planned a fresh heartbeat (a minute away) and saved it. It is killed before
    // the state is changed under it: a save of its still on the way (they are chained, one after
    // the other) once landed after the change and undid it.
    const first = await lead();
    await until('the first leader to save the heartbeat state', 30_000, state);
    await f.kill(first);
    // Now the state a relay stopped for over two intervals left: three due times missed.
    const due2 = Date.now() + 50_000;
    const due1 = due2 - MINUTE;
    await queryRows(
      url,
      "UPDATE schedule_state SET next_run_at = $1, last_run_at = $2 WHERE job = 'heartbeat'",
      [due1 - 2 * MINUTE, due1 - 3 * MINUTE],
    );
    await Promise.all([f.start(0), f.start(1), f.start(2)]);

    // The next leader fires the latest missed due time (due1) at once; its run is killed mid-run.
    const cut = await until('the first heartbeat run to start sleeping', 30_000, () =>
      f.events().find((e) => e.ev === 'sleep'),
    );
    const cutBy = f.procs.findIndex((p) => p?.child.pid === cut.ppid);
    expect(cutBy, `the leader runs the heartbeat: ${report()}`).toBe(await schedulerLeader(f, url));
    await kill(cutBy);

    // The next leader runs due1 again; its reply is sent, the token removed.
    await until(
      () => `the reply to due1 (${report()})`,
      30_000,
      () => sent().length > 0 || undefined,
    );
    await until(
      () => `due1 recorded as sent with due2 next (${report()})`,
      10_000,
      async () => {
        const s = await state();
        return s?.last_outcome === 'sent' && s.next_run_at === due2 ? s : undefined;
      },
    );
    expect(Date.now(), `due1 done before due2 (a loaded machine took too long): ${report()}`).toBeLessThan(
      due2,
    );
    expect(runs(), report()).toHaveLength(2);
    writeFileSync(answer, 'HEARTBEAT_OK');
    await kill(await lead());

    // due2 comes at its time from the next leader: silent (the answer is the token alone).
    const run2 = await until(
      () => `a run for due2 (${report()})`,
      Math.max(0, due2 - Date.now()) + 30_000,
      () => runs().find((e) => e.t >= due2),
    );
    await until(
      () => `due2 recorded as silent with due3 next (${report()})`,
      20_000,
      async () => {
        const s = await state();
        return s?.last_outcome === 'silent' && s.next_run_at === due2 + MINUTE ? s : undefined;
      },
    );
    expect(
      f.procs.findIndex((p) => p?.child.pid === run2.ppid),
      report(),
    ).toBe(await schedulerLeader(f, url));
    const killedAt = await kill(await lead());

    // The next leader plans due3 (it saves its plan when it takes over) and does not fire due2 again.
    const after = await until(
      () => `a save by the leader after the last kill (${report()})`,
      30_000,
      async () => {
        const s = await state();
        return s && s.updated_at >= killedAt ? s : undefined;
      },
    );
    expect(after.next_run_at, report()).toBe(due2 + MINUTE);
    await until(
      'every reply sent',
      20_000,
      async () =>
        (await queryRows(url, "SELECT id FROM outbox WHERE status <> 'sent'")).length === 0 || undefined,
    );
    await Promise.all(restarts);

    // Three runs: due1 cut and done again, due2 once; one message, once, without the token.
    expect(
      runs().map((e) => (e.t >= due2 ? 'due2' : 'due1')),
      report(),
    ).toEqual(['due1', 'due1', 'due2']);
    expect(sent(), report()).toEqual(['news one']);
    // Of the missed due times only the latest fired: the one reply is keyed by due1.
    const keys = await queryRows<{ key: string }>(
      url,
      "SELECT DISTINCT key FROM outbox WHERE key LIKE 'sys:heartbeat:%'",
    );
    expect(keys.map((k) => k.key)).toEqual([`sys:heartbeat:${due1}`]);
    // And the leader that found them said once that the older ones are not made up.
    const older = f.homes
      .flatMap((_, i) => f.logs(i))
      .filter((l) => l.msg === 'heartbeat: older check-ins missed while stopped are not caught up');
    expect(older).toHaveLength(1);
    console.log(`relays-heartbeat: ${f.killed.size} leader kills, ${Date.now() - t0} ms`);
  }, 150_000);
});

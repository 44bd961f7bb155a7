// Events from outside across three built relays on one PostgreSQL database: any relay stores them
// (here `trigger` on each relay's control socket), one runs them, the holder of the `events` lead,
// told at once by an `events_stored` notification. Each event runs once and is answered once,
// also when the runner is SIGKILLed mid-run (the next holder runs that one again, its reply sent
// once). Needs `npm run build`.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { callControl } from '../../src/control/client.js';
import { MAIN, waitFor } from '../e2e/helpers.js';
import { freshDatabase, queryRows } from '../support/postgres-db.js';
import { type Fleet, leaderOf, makeFleet } from '../support/relay-fleet.js';

const CHATS = ['twilio:+15551230001', 'twilio:+15551230002'];
const EVENTS = 12;

let fleet: Fleet | undefined;
afterEach(async () => {
  await fleet?.close();
});

async function trigger(f: Fleet, i: number, chat: string, text: string): Promise<void> {
  const r = await callControl(join(f.homes[i]?.dir ?? '', 'relay.sock'), 'trigger', {
    event: { chat, text },
  });
  expect(r, JSON.stringify(r)).toMatchObject({ ok: true, result: { type: 'stored' } });
}

describe('events from outside across three relays', () => {
  it('stored on any relay, run once by the one leading `events`, also through a kill of that one', async () => {
    expect(existsSync(MAIN), 'build first: npm run build').toBe(true);
    const url = await freshDatabase();
    const f = await makeFleet(url, 3, { queue: { leaseSeconds: 3 } });
    fleet = f;
    await Promise.all([f.start(0), f.start(1), f.start(2)]);
    expect(await waitFor(async () => (await leaderOf(f, url, 'events')) >= 0, 30_000)).toBe(true);
    const lead = await leaderOf(f, url, 'events');
    const done = async () =>
      (await queryRows<{ state: string }>(url, 'SELECT state FROM outside_events')).filter(
        (r) => r.state === 'done',
      ).length;
    const runsOf = (marker: string) =>
      f.events().filter((e) => e.ev === 'start' && e.prompt?.includes(`${marker} `));
    const sentOf = (marker: string) => f.fake.created.filter((m) => (m.body ?? '').includes(`${marker} `));

    // Each relay in turn stores one, two chats: each runs while the other relays store more.
    for (let i = 0; i < EVENTS; i++) await trigger(f, i % 3, CHATS[i % 2] as string, `EV-${i} sleep:300`);
    expect(await waitFor(async () => (await done()) === EVENTS, 60_000)).toBe(true);
    const leaderPid = f.procs[lead]?.child.pid;
    for (let i = 0; i < EVENTS; i++) {
      expect(
        runsOf(`EV-${i}`).map((e) => e.ppid),
        `EV-${i} ran once, on the leader`,
      ).toEqual([leaderPid]);
      expect(await waitFor(() => sentOf(`EV-${i}`).length > 0, 30_000)).toBe(true);
    }
    const outcomes = await queryRows<{ outcome: string; attempts: number }>(
      url,
      'SELECT outcome, attempts FROM outside_events',
    );
    expect(
      outcomes.every((o) => o.outcome === 'sent' && o.attempts === 1),
      JSON.stringify(outcomes),
    ).toBe(true);

    // One stored on another relay runs on the leader, which is killed mid-run: the next leader
    // runs it once more (it was saved as begun) and its reply goes out once.
    await trigger(f, (lead + 1) % 3, CHATS[0] as string, 'EV-cut sleeponce:60000');
    expect(await waitFor(() => runsOf('EV-cut').length === 1, 30_000)).toBe(true);
    expect(runsOf('EV-cut')[0]?.ppid).toBe(leaderPid);
    await f.kill(lead);
    expect(await waitFor(async () => (await done()) === EVENTS + 1, 60_000)).toBe(true);
    expect(runsOf('EV-cut')).toHaveLength(2);
    expect(await waitFor(() => sentOf('EV-cut').length > 0, 30_000)).toBe(true);
    const next = await leaderOf(f, url, 'events');
    expect(next).toBeGreaterThanOrEqual(0);
    expect(runsOf('EV-cut')[1]?.ppid).toBe(f.procs[next]?.child.pid);
    // Every reply once: none of the first twelve again, the cut one once.
    for (let i = 0; i < EVENTS; i++) expect(sentOf(`EV-${i}`)).toHaveLength(1);
    expect(sentOf('EV-cut')).toHaveLength(1);
  }, 240_000);
});

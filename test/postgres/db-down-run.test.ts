// A run that finishes while the store's PostgreSQL server is away (the built relay, a cluster of its
// own stopped with `pg_ctl stop -m fast` mid-run and started again): the agent's reply cannot be
// written, so it is held, and once the server is back it is written and sent exactly once; the
// message is done after one run, and nothing else is lost or sent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postWhenUp, smsParams } from '../channels/twilio/helpers/harness.js';
import { waitFor } from '../e2e/helpers.js';
import { type OutageRig, startOutageRig } from './outage-rig.js';

let rig: OutageRig | undefined;
beforeAll(async () => {
  rig = await startOutageRig();
}, 120_000);
afterAll(async () => {
  await rig?.stop();
});

describe('a run that finishes while the PostgreSQL server is away', () => {
  it('holds its reply until the server is back, then writes and sends it once', async () => {
    const { cluster, fake, home, inbound, relay, logLines, rows } = rig as OutageRig;
    const text = 'slow one sleep:2500';
    const res = await postWhenUp(inbound, smsParams({ Body: text, MessageSid: `SM${'d'.repeat(32)}` }));
    expect(res.status, relay.stderr()).toBe(200);
    expect(await waitFor(() => home.events().some((e) => e.ev === 'sleep')), relay.stderr()).toBe(true);

    await cluster.pause();
    // The agent finishes during the outage; the relay then meets the stopped server.
    expect(await waitFor(() => home.events().some((e) => e.ev === 'end'))).toBe(true);
    expect(
      await waitFor(() => logLines().some((l) => l.msg?.startsWith('the store cannot be reached'))),
      JSON.stringify(logLines().slice(-20)),
    ).toBe(true);
    expect(fake.created).toEqual([]);
    expect(relay.child.exitCode, relay.stderr()).toBe(null);

    await cluster.resume();
    expect(
      await waitFor(() => fake.created.length >= 1),
      `${relay.stderr()}\n${JSON.stringify(logLines().slice(-30))}`,
    ).toBe(true);
    // Settled: the message done and its reply marked sent, in the database.
    const settled = async () => {
      const inbox = await rows<{ status: string }>('SELECT status FROM inbox');
      const outbox = await rows<{ status: string }>('SELECT status FROM outbox');
      return (
        inbox.every((r) => r.status === 'done') &&
        outbox.length > 0 &&
        outbox.every((r) => r.status === 'sent')
      );
    };
    for (const end = Date.now() + 45_000; !(await settled()) && Date.now() < end; )
      await new Promise((r) => setTimeout(r, 100));
    expect(await rows('SELECT status, tries FROM inbox')).toEqual([{ status: 'done', tries: 1 }]);
    expect(await rows('SELECT status FROM outbox')).toEqual([{ status: 'sent' }]);
    expect(fake.created.map((m) => m.body)).toEqual([`reply: ${text}`]);
    expect(home.events().filter((e) => e.ev === 'start')).toHaveLength(1);
  }, 120_000);
});

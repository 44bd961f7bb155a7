// The liveness watchdog over the real channel, a fake socket and a virtual
// clock: a link that answers keep-alives but delivers nothing is found and reconnected; a healthy
// quiet link is probed but never reconnected; the probe never reaches a chat or the agent.
import { describe, expect, it } from 'vitest';
import type { FakeSocket } from './fake-socket.js';
import { OWNER_PN } from './fake-socket.js';
import { setup, VirtualScheduler } from './harness.js';
import { text } from './messages.js';

const MIN = 60_000;
const ALICE = '15557654321@s.whatsapp.net';
const SELF = `${OWNER_PN}@s.whatsapp.net`;

async function watched(quietMinutes = 30) {
  const clock = new VirtualScheduler();
  const h = await setup({
    config: { whatsapp: { allowFrom: ['+15557654321'], liveness: { quietMinutes } } },
    deps: { scheduler: clock, now: clock.now },
  });
  return { ...h, clock };
}

const live = (sockets: FakeSocket[]) => sockets.filter((s) => s.listenerCount() > 0).length;

describe('WhatsApp liveness watchdog', () => {
  it('a link that keeps its keep-alives but delivers nothing is reconnected within the quiet period plus one probe', async () => {
    const h = await watched();
    const first = await h.start();
    first.usync = 'silent'; // the probe is never answered, like every message on this socket
    await h.clock.advance(30 * MIN - 1);
    expect(first.usyncQueries).toHaveLength(0);
    await h.clock.advance(1);
    // The probe: one device-list query about this account, in the background context.
    expect(first.usyncQueries).toEqual([
      { users: [`${OWNER_PN}@s.whatsapp.net`], protocols: ['devices'], context: 'background' },
    ]);
    expect(h.sockets).toHaveLength(1);
    await h.clock.advance(30_000); // the probe's timeout
    expect(h.sockets).toHaveLength(2);
    expect(first.ended).toBe(true);
    expect(live(h.sockets)).toBe(1);
    expect(h.logs).toContainEqual(
      expect.objectContaining({ level: 40, msg: 'whatsapp liveness probe failed: reconnecting' }),
    );
    // Never noise in a chat, never a run.
    expect(first.sent).toEqual([]);
    expect(h.handled).toEqual([]);
  });

  it('a second failure in a row marks the channel degraded with the last probe; an answer clears it', async () => {
    const h = await watched();
    (await h.start()).usync = 'silent';
    await h.clock.advance(30 * MIN + 30_000);
    const second = h.sock();
    second.usync = 'timeout'; // Baileys' own query timeout: the answer is undefined
    second.open();
    expect(h.channel.status()).toMatchObject({ type: 'connected', probe: { ok: false } });
    await h.clock.advance(MIN); // after a failure the next check comes sooner than the quiet period
    const st = h.channel.status();
    expect(st).toMatchObject({ type: 'degraded', retries: 2 });
    expect(st.type === 'degraded' && st.lastError).toMatch(/failed 2 liveness checks/);
    expect(st.type === 'degraded' && st.probe).toEqual({
      ok: false,
      at: h.clock.now(),
      detail: 'WhatsApp did not answer the device-list query',
    });
    expect(h.sockets).toHaveLength(3);
    const third = h.sock();
    third.open(); // answers probes
    expect(h.channel.status().type).toBe('degraded'); // still failing until something proves otherwise
    await h.clock.advance(2 * MIN);
    expect(h.channel.status()).toMatchObject({
      type: 'connected',
      probe: { ok: true, at: h.clock.now(), detail: expect.stringMatching(/^answered in \d+ ms$/) },
    });
    expect(h.sockets).toHaveLength(3);
  });

  it('a link removed on the phone without a close event is caught by the device list', async () => {
    const h = await watched();
    const s = await h.start();
    s.usync = 'unlinked';
    await h.clock.advance(30 * MIN);
    expect(h.sockets).toHaveLength(2);
    expect(h.channel.status()).toMatchObject({ type: 'connecting' });
    expect(h.logs).toContainEqual(
      expect.objectContaining({ error: "this device is no longer in the account's linked devices" }),
    );
  });

  it('D19: a healthy link quiet for two hours is probed, never reconnected', async () => {
    const h = await watched();
    const s = await h.start();
    await h.clock.advance(120 * MIN);
    expect(h.sockets).toHaveLength(1);
    expect(s.ended).toBe(false);
    expect(s.usyncQueries).toHaveLength(4); // one per quiet period
    expect(h.channel.status()).toMatchObject({ type: 'connected', probe: { ok: true } });
    expect(s.sent).toEqual([]);
    expect(h.handled).toEqual([]);
  });

  it('D19: after one forced reconnect the timers start over, so no second reconnect follows', async () => {
    const h = await watched();
    (await h.start()).usync = 'silent';
    await h.clock.advance(30 * MIN + 30_000);
    expect(h.sockets).toHaveLength(2);
    h.sock().open(); // healthy again
    await h.clock.advance(60 * MIN);
    expect(h.sockets).toHaveLength(2);
    expect(h.channel.status()).toMatchObject({ type: 'connected', probe: { ok: true } });
  });

  it('a link that delivers messages is never probed; our own sends do not count as hearing from it', async () => {
    const h = await watched();
    const s = await h.start();
    for (let i = 0; i < 12; i++) {
      await h.clock.advance(10 * MIN);
      s.upsert([text({ chat: ALICE, ts: Math.floor(h.clock.now() / 1000) }, `message ${i}`)]);
    }
    await h.channel.idle();
    expect(s.usyncQueries).toHaveLength(0);
    expect(h.handled).toHaveLength(12);
    // Only our own messages for 30 minutes (a heartbeat's replies): the echo is local, so it is probed.
    for (let i = 0; i < 3; i++) {
      await h.clock.advance(10 * MIN);
      await h.channel.send(`+${OWNER_PN}`, { type: 'text', text: 'check-in' });
    }
    expect(s.sent.map((m) => m.jid)).toEqual([SELF, SELF, SELF]);
    expect(s.usyncQueries).toHaveLength(1);
    expect(h.sockets).toHaveLength(1);
  });

  it('quietMinutes 0 turns the watchdog off', async () => {
    const h = await watched(0);
    const s = await h.start();
    s.usync = 'silent';
    await h.clock.advance(24 * 60 * MIN);
    expect(s.usyncQueries).toHaveLength(0);
    expect(h.clock.pendingCount()).toBe(0);
  });
});

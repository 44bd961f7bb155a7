// The alert by another route: the real WhatsApp channel over a fake socket, the real
// incident store (SQLite), and SMS through the real Twilio REST client to the fake Twilio server.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/log.js';
import { LinkAlert, type SendSms } from '../../../src/ops/alert/service.js';
import { twilioSms } from '../../../src/ops/alert/wiring.js';
import { alertMigration, incidentStore } from '../../../src/store/sqlite/alert-incidents.js';
import { openDb } from '../../../src/store/sqlite/db.js';
import { whatsappAuthStore, whatsappMigration } from '../../../src/store/sqlite/whatsapp-auth.js';
import {
  ACCOUNT,
  type FakeTwilio,
  startFakeTwilio,
  TOKEN,
} from '../../channels/twilio/helpers/fake-twilio.js';
import { OWNER_E164 } from '../../channels/whatsapp/fake-socket.js';
import { setup, VirtualScheduler } from '../../channels/whatsapp/harness.js';

const MIN = 60_000;
let fake: FakeTwilio | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function rig(opts: { twilio?: Record<string, unknown>; alertTo?: string; send?: SendSms } = {}) {
  fake = await startFakeTwilio();
  const clock = new VirtualScheduler();
  const twilio = opts.twilio ?? {
    accountSid: ACCOUNT,
    authToken: TOKEN,
    from: '+15550000000',
    apiBaseUrl: fake.url,
  };
  const h = await setup({
    config: {
      whatsapp: {
        liveness: { quietMinutes: 30, alertAfterMinutes: 10, ...(opts.alertTo && { alertTo: opts.alertTo }) },
      },
      twilio,
    },
    // A fast budget of 0: the first failed reconnect is already `degraded` (as after a long outage).
    deps: {
      scheduler: clock,
      now: clock.now,
      backoff: {
        initialMs: 1_000,
        factor: 2,
        maxMs: 1_000,
        jitter: 0,
        budget: 0,
        slowMs: 60_000,
        maxRestarts: 3,
      },
    },
  });
  const db = openDb(join(h.dir, 'agentwire.db'), [whatsappMigration, alertMigration]);
  const logs: Record<string, unknown>[] = [];
  const log = createLogger({
    level: 'debug',
    destination: { write: (s: string) => void logs.push(JSON.parse(s)) },
  });
  const config = (await import('../../../src/config/schema.js')).configSchema.parse({
    whatsapp: { liveness: { alertAfterMinutes: 10, ...(opts.alertTo && { alertTo: opts.alertTo }) } },
    twilio,
  });
  const alerter = () =>
    new LinkAlert({
      config,
      incidents: incidentStore(db),
      whatsappAuth: whatsappAuthStore(db),
      log,
      env: {},
      state: () => h.channel.status(),
      send: opts.send ?? twilioSms(config, log, {}),
      now: clock.now,
    });
  return { h, clock, db, logs, alerter, fake: fake! };
}

const bodies = (f: FakeTwilio) => f.created.map((m) => m.body ?? '');

describe('the SMS alert when WhatsApp stays down', () => {
  it('one alert after alertAfterMinutes, none again (also after a restart), one recovery notice', async () => {
    const r = await rig();
    let alert = r.alerter();
    const sock = await r.h.start();
    await alert.tick();
    sock.close(503, 'Stream Errored');
    expect(r.h.channel.status().type).toBe('degraded');
    await alert.tick();
    await r.clock.advance(9 * MIN);
    await alert.tick();
    expect(r.fake.created).toHaveLength(0);
    await r.clock.advance(2 * MIN);
    await alert.tick();
    expect(r.fake.created.map((m) => [m.to, m.from])).toEqual([[OWNER_E164, '+15550000000']]);
    expect(bodies(r.fake)[0]).toMatch(
      /^agentwire: WhatsApp has not worked for 11 min: .*503.*agentwire doctor/,
    );
    for (let i = 0; i < 3; i++) {
      await r.clock.advance(5 * MIN);
      await alert.tick();
    }
    // A restart of the relay in the middle of the incident: the stored incident says "told".
    alert = r.alerter();
    await alert.tick();
    expect(r.fake.created).toHaveLength(1);
    // Back: WhatsApp reconnects (the slow retry), one recovery SMS, then nothing more.
    await r.clock.advance(MIN);
    r.h.sock().open();
    await alert.tick();
    await alert.tick();
    expect(bodies(r.fake)).toHaveLength(2);
    expect(bodies(r.fake)[1]).toMatch(/^agentwire: WhatsApp works again after \d+ min\./);
    // A new incident (the phone removed the link) is a new alert, with what to do.
    r.h.sock().close(401, 'Connection Failure');
    await alert.tick();
    await r.clock.advance(10 * MIN);
    await alert.tick();
    await alert.tick();
    expect(bodies(r.fake)).toHaveLength(3);
    expect(bodies(r.fake)[2]).toMatch(/needs to be linked again .*agentwire login/);
    expect(bodies(r.fake).join('\n')).not.toContain('15550001111');
  });

  it('a liveness-degraded link (answers keep-alives, delivers nothing) alerts too', async () => {
    const r = await rig({ alertTo: '+15557770000' });
    const alert = r.alerter();
    (await r.h.start()).usync = 'silent';
    await r.clock.advance(30 * MIN + 30_000); // first failed check, reconnect
    r.h.sock().usync = 'silent';
    r.h.sock().open();
    await r.clock.advance(MIN + 30_000); // second failed check: degraded
    expect(r.h.channel.status().type).toBe('degraded');
    await alert.tick();
    await r.clock.advance(11 * MIN);
    await alert.tick();
    expect(r.fake.created.map((m) => m.to)).toEqual(['+15557770000']);
    expect(bodies(r.fake)[0]).toMatch(/failed 2 liveness checks/);
  });

  it('a short outage sends nothing at all', async () => {
    const r = await rig();
    const alert = r.alerter();
    const sock = await r.h.start();
    sock.close(503);
    await alert.tick();
    await r.clock.advance(5 * MIN);
    await alert.tick();
    r.h.sock().open();
    await alert.tick();
    await r.clock.advance(30 * MIN);
    await alert.tick();
    expect(r.fake.created).toEqual([]);
  });

  it('without Twilio credentials nothing is sent, and the log says why once', async () => {
    const r = await rig({ twilio: { from: '+15550000000' } });
    const alert = r.alerter();
    (await r.h.start()).close(503);
    await alert.tick();
    await r.clock.advance(11 * MIN);
    await alert.tick();
    await alert.tick();
    expect(r.fake.created).toEqual([]);
    expect(r.logs.filter((l) => l.msg === 'whatsapp is down, but no alert SMS can be sent')).toEqual([
      expect.objectContaining({ why: 'no Twilio credentials' }),
    ]);
  });

  it('an SMS that never reached Twilio is tried again; one Twilio refused is not', async () => {
    const calls: string[] = [];
    const results = [
      { ok: false as const, error: 'network error ECONNREFUSED' },
      { ok: false as const, error: 'Twilio refused the message (21610)' },
    ];
    const r = await rig({
      send: async (_to, text) => {
        calls.push(text);
        return results.shift() ?? { ok: true };
      },
    });
    const alert = r.alerter();
    (await r.h.start()).close(503);
    await alert.tick();
    await r.clock.advance(11 * MIN);
    await alert.tick(); // refused by the network: released
    await alert.tick(); // tried again: Twilio refused it, kept as sent
    await alert.tick();
    expect(calls).toHaveLength(2);
  });
});

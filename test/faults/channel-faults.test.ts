// Faults at the far edge of a channel, through the whole relay (startRelay: store, queue, runner, the
// fake claude as a real child process, the real channel): the WhatsApp socket closing in the middle of
// a send, Twilio's REST API answering 429, 500 or a permanent error, and the store full when a Twilio
// webhook arrives. Each row checks the four promises: the user hears something true (or, when Twilio
// refuses the recipient for good, the failure is recorded with its code; when the store refuses the
// message, Twilio hears no 200), nothing is lost, no process is left, the next message runs.

import { DatabaseSync } from 'node:sqlite';
import { DisconnectReason } from '@whiskeysockets/baileys';
import { afterEach, describe, expect, it } from 'vitest';
import { CHANNELS } from '../../src/channels/registry.js';
import type { TwilioChannel } from '../../src/channels/twilio/index.js';
import { createWhatsAppChannel } from '../../src/channels/whatsapp/index.js';
import { liveStatus } from '../../src/ops/status/live.js';
import { renderStatus } from '../../src/ops/status/render.js';
import type { Queue } from '../../src/queue/queue.js';
import { createQueue, type RunningRelay, startRelay } from '../../src/relay.js';
import { openDb } from '../../src/store/sqlite/db.js';
import { sqliteFile, storeOver } from '../../src/store/sqlite/open.js';
import { ALL_MIGRATIONS } from '../../src/store/sqlite/schema.js';
import { statusReader } from '../../src/store/sqlite/status-read.js';
import {
  type FakeTwilio,
  fakeTwilioSection,
  startFakeTwilio,
} from '../channels/twilio/helpers/fake-twilio.js';
import { smsParams, twilioPost } from '../channels/twilio/helpers/harness.js';
import { boom, fakeSockets } from '../channels/whatsapp/fake-socket.js';
import { ManualScheduler } from '../channels/whatsapp/harness.js';
import { text } from '../channels/whatsapp/messages.js';
import { type Home, makeHome, waitFor } from '../e2e/helpers.js';
import { fullDisk } from './full-disk.js';
import { FAULT_CLI, leftovers } from './rig.js';

let home: Home | undefined;
let relay: RunningRelay | undefined;
let fake: FakeTwilio | undefined;
afterEach(async () => {
  await relay?.stop(0);
  relay = undefined;
  await fake?.close();
  fake = undefined;
  home?.cleanup();
  home = undefined;
});

const agent = { command: [process.execPath, FAULT_CLI] };

/** A second connection to the relay's store (WAL: it sees what the relay committed). */
function rows(_r: RunningRelay) {
  if (!home) throw new Error('no home');
  const db = new DatabaseSync(sqliteFile(home.ctx().paths.home), { readOnly: true });
  return {
    inbox: () =>
      (
        db.prepare('SELECT text, status FROM inbox ORDER BY id').all() as { text: string; status: string }[]
      ).map((x) => ({ ...x })),
    outbox: () =>
      (
        db.prepare('SELECT status, error FROM outbox ORDER BY id').all() as {
          status: string;
          error: string;
        }[]
      ).map((x) => ({ ...x })),
  };
}

const pids = (h: Home) => ({
  cli: [...new Set(h.events().map((e) => e.pid))],
  grandchildren: h.events().flatMap((e) => (e.child ? [e.child] : [])),
});

describe('WhatsApp: the socket closes in the middle of sending the reply', () => {
  it('the reply goes out exactly once on the next connection, and the chat carries on', async () => {
    const ALICE_PN = '15557654321';
    const ALICE = `${ALICE_PN}@s.whatsapp.net`;
    home = makeHome({ agent, whatsapp: { enabled: true, allowFrom: [`+${ALICE_PN}`] } });
    const { makeSocket, sockets } = fakeSockets();
    const scheduler = new ManualScheduler();
    relay = await startRelay(home.ctx(), {
      services: [],
      channels: [
        {
          name: 'whatsapp',
          enabled: () => true,
          create: (d) =>
            createWhatsAppChannel({
              config: d.config,
              paths: d.paths,
              store: d.store.whatsapp,
              log: d.log,
              makeSocket,
              scheduler,
              typingTimers: scheduler,
              random: () => 0.5,
              sleep: async () => {},
            }),
        },
      ],
    });
    const first = sockets[0]!;
    first.open();
    const send = first.sendMessage;
    let cut = false;
    first.sendMessage = async (jid, content, options) => {
      if (cut) return send(jid, content, options);
      cut = true;
      first.close(DisconnectReason.connectionClosed, 'Connection Closed');
      throw boom(DisconnectReason.connectionClosed, 'Connection Closed');
    };
    first.upsert([text({ chat: ALICE }, 'hello')]);
    expect(await waitFor(() => cut)).toBe(true);
    // The reconnect backoff elapses: one new socket, which opens.
    expect(await waitFor(() => scheduler.pending.size > 0)).toBe(true);
    scheduler.fire();
    const second = sockets.at(-1)!;
    expect(second).not.toBe(first);
    second.open();
    await relay.queue.whenIdle();

    const texts = () =>
      sockets.flatMap((s) => s.sent.map((m) => (m.content as { text?: string }).text).filter(Boolean));
    expect(texts()).toEqual(['reply: hello']);
    expect(second.sent.map((m) => m.jid)).toEqual([ALICE]);
    const r = rows(relay);
    expect(r.inbox()).toEqual([{ text: 'hello', status: 'done' }]);
    expect(r.outbox()).toEqual([{ status: 'sent', error: expect.stringContaining('Connection') }]);
    expect(await leftovers(pids(home))).toEqual([]);

    second.upsert([text({ chat: ALICE }, 'and now this')]);
    expect(await waitFor(() => texts().length === 2)).toBe(true);
    await relay.queue.whenIdle();
    expect(texts()).toEqual(['reply: hello', 'reply: and now this']);
    expect(await leftovers(pids(home))).toEqual([]);
  });
});

interface TwilioRow {
  fault: string;
  failures: { status: number; code: number }[];
  /** What Twilio accepted for the user's first message. */
  delivered: string[];
  outbox: { status: string; error: unknown };
}

const TWILIO_ROWS: TwilioRow[] = [
  {
    fault: '429 (20429) once',
    failures: [{ status: 429, code: 20429 }],
    delivered: ['reply: hello'],
    outbox: { status: 'sent', error: null },
  },
  {
    fault: '500 twice (the outbox retries after the channel gave up)',
    failures: [
      { status: 500, code: 20500 },
      { status: 500, code: 20500 },
    ],
    delivered: ['reply: hello'],
    outbox: { status: 'sent', error: 'Twilio server error 500 (code 20500)' },
  },
  {
    fault: 'a permanent error: invalid recipient (21211)',
    failures: [{ status: 400, code: 21211 }],
    delivered: [],
    outbox: { status: 'failed', error: 'invalid recipient number (code 21211)' },
  },
  {
    fault: 'a permanent error: the user unsubscribed (21610)',
    failures: [{ status: 400, code: 21610 }],
    delivered: [],
    outbox: { status: 'failed', error: 'recipient unsubscribed (replied STOP) (code 21610)' },
  },
];

describe('Twilio: the REST API fails the reply', () => {
  it.each(TWILIO_ROWS)('$fault', async (row) => {
    fake = await startFakeTwilio();
    home = makeHome({
      agent,
      twilio: fakeTwilioSection(fake),
    });
    const twilioOnly = CHANNELS.filter((f) => f.name === 'twilio');
    relay = await startRelay(home.ctx(), { channels: twilioOnly, services: [] });
    const url = `http://127.0.0.1:${(relay.channels.get('twilio') as TwilioChannel).port()}/twilio/inbound`;
    fake.failNext(...row.failures);

    expect(
      (await twilioPost(url, smsParams({ MessageSid: `SM${'1'.repeat(32)}`, Body: 'hello' }))).status,
    ).toBe(200);
    await relay.queue.whenIdle();
    expect(fake.created.map((m) => m.body)).toEqual(row.delivered);
    const r = rows(relay);
    expect(r.inbox()).toEqual([{ text: 'hello', status: 'done' }]);
    expect(r.outbox()).toEqual([row.outbox]);
    expect(await leftovers(pids(home))).toEqual([]);

    // The user writes again (which also reopens a chat Twilio said had unsubscribed).
    expect(
      (await twilioPost(url, smsParams({ MessageSid: `SM${'2'.repeat(32)}`, Body: 'and now this' }))).status,
    ).toBe(200);
    await relay.queue.whenIdle();
    expect(fake.created.map((m) => m.body)).toEqual([...row.delivered, 'reply: and now this']);
    expect(r.inbox().at(-1)).toEqual({ text: 'and now this', status: 'done' });
    expect(await leftovers(pids(home))).toEqual([]);
  });
});

// The store fault of the console rows, met at the Twilio webhook: the real channel and queue over real
// SQLite behind the full-disk wrapper. Twilio is the one who must hear it: no 200, so it delivers again.
describe('Twilio: the store is full when a message arrives', () => {
  it('the webhook does not acknowledge; the redelivery after the disk has room is answered once', async () => {
    fake = await startFakeTwilio();
    home = makeHome({
      agent,
      twilio: fakeTwilioSection(fake),
    });
    const ctx = home.ctx();
    const factory = CHANNELS.find((f) => f.name === 'twilio');
    if (!factory) throw new Error('no twilio channel');
    const real = openDb(sqliteFile(ctx.paths.home), ALL_MIGRATIONS);
    const disk = fullDisk(real);
    const store = storeOver(disk.db);
    const channel = (await factory.create({
      ...ctx,
      store,
      state: store.channelState('twilio'),
    })) as TwilioChannel;
    let queue: Queue | undefined;
    try {
      queue = createQueue(ctx, store, new Map([['twilio', channel]]));
      await queue.start();
      await channel.start(queue.handleInbound);
      const url = `http://127.0.0.1:${channel.port()}/twilio/inbound`;
      const hello = smsParams({ MessageSid: `SM${'3'.repeat(32)}`, Body: 'hello' });
      const count = () => (real.prepare('SELECT count(*) AS n FROM inbox').get() as { n: number }).n;

      disk.fill(/INSERT INTO inbox/);
      const refused = await twilioPost(url, hello);
      expect(refused.status).toBeGreaterThanOrEqual(500);
      await queue.whenIdle();
      expect(disk.refused).toBeGreaterThan(0);
      expect(count()).toBe(0);
      expect(fake.created).toEqual([]);
      expect(home.events()).toEqual([]);

      disk.free();
      // Twilio delivers again (and once more, as it may): one row, one run, one reply.
      expect((await twilioPost(url, hello)).status).toBe(200);
      expect((await twilioPost(url, hello)).status).toBe(200);
      await queue.whenIdle();
      expect(fake.created.map((m) => m.body)).toEqual(['reply: hello']);
      expect(count()).toBe(1);
      expect(await leftovers(pids(home))).toEqual([]);

      const next = smsParams({ MessageSid: `SM${'4'.repeat(32)}`, Body: 'and now this' });
      expect((await twilioPost(url, next)).status).toBe(200);
      await queue.whenIdle();
      expect(fake.created.map((m) => m.body)).toEqual(['reply: hello', 'reply: and now this']);
      expect(await leftovers(pids(home))).toEqual([]);
    } finally {
      await channel.stop();
      await queue?.shutdown(0);
      real.close();
    }
  });
});

describe('Twilio: an outage outlasts the retry time', () => {
  it('the reply expires, the chat gets one notice once Twilio answers again, and status counts it', async () => {
    fake = await startFakeTwilio();
    // 3.6 s of retrying (0.001 h), tries at most 1 s apart: the outage outlasts it.
    home = makeHome({
      agent,
      twilio: fakeTwilioSection(fake),
      delivery: { retryHours: 0.001, maxRetryDelaySeconds: 1 },
    });
    const twilioOnly = CHANNELS.filter((f) => f.name === 'twilio');
    relay = await startRelay(home.ctx(), { channels: twilioOnly, services: [] });
    const running = relay;
    const url = `http://127.0.0.1:${(running.channels.get('twilio') as TwilioChannel).port()}/twilio/inbound`;
    fake.outage({ status: 503, code: 20503 });
    const r = rows(running);
    for (const [n, body] of ['hello', 'and this'].entries()) {
      const sid = `SM${String(n + 1).repeat(32)}`;
      expect((await twilioPost(url, smsParams({ MessageSid: sid, Body: body }))).status).toBe(200);
      // Two runs, two replies: the second message waits until the first is claimed, else a store
      // that answers later (the deferred engine) lets one run collect both.
      expect(await waitFor(() => r.inbox()[n]?.status !== 'pending', 10_000)).toBe(true);
    }
    const expired = () => r.outbox().filter((x) => x.status === 'failed').length;
    expect(await waitFor(() => expired() === 2, 30_000)).toBe(true);
    // The notice is still waiting: Twilio is down.
    expect(r.outbox().filter((x) => x.status === 'pending')).toHaveLength(1);
    const status = await liveStatus({
      store: statusReader(new DatabaseSync(sqliteFile(home.ctx().paths.home), { readOnly: true })),
      config: home.ctx().config,
      channels: () => [...running.channels].map(([name, ch]) => ({ name, state: ch.status() })),
      queue: () => running.queue.status(),
      startedAt: Date.now(),
    })();
    expect(status.replies).toMatchObject({ unsent: 1, expired: 2, lastExpiredAt: expect.any(String) });
    expect(renderStatus(status, Date.now())).toContain('Replies: 1 unsent, 2 given up after the retry time');
    expect(status.recentFailures[0]).toMatchObject({ kind: 'delivery_expired' });

    fake.outage(undefined);
    await running.queue.whenIdle();
    expect(fake.created.map((m) => m.body)).toEqual([
      '(Some replies could not be delivered: sending kept failing for 1 min. Ask again if you still need them.)',
    ]);
    expect(await leftovers(pids(home))).toEqual([]);

    // The next message is answered as usual.
    expect(
      (await twilioPost(url, smsParams({ MessageSid: `SM${'3'.repeat(32)}`, Body: 'again' }))).status,
    ).toBe(200);
    await running.queue.whenIdle();
    expect(fake.created.map((m) => m.body).at(-1)).toBe('reply: again');
  });
});

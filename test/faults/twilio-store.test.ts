// The store refusing a Twilio webhook's message (SQLITE_FULL on the inbox write) through the real
// Twilio channel, queue and fake claude, with Twilio's REST API faked on 127.0.0.1. Twilio retries a
// webhook only when asked to (connection overrides), so a refused message must be held and stored
// again before answering; if that fails the answer is one Twilio retries (5xx), and once its retries
// are over without the message stored, the sender is told by REST.
import { afterEach, describe, expect, it } from 'vitest';
import { createTwilioChannel, type TwilioChannel } from '../../src/channels/twilio/index.js';
import { NOT_TAKEN_NOTICE } from '../../src/channels/twilio/store-retry.js';
import { agentResolver, mediaPolicy } from '../../src/queue/adapters.js';
import { Queue } from '../../src/queue/queue.js';
import { openDb } from '../../src/store/sqlite/db.js';
import { mediaHostMigration } from '../../src/store/sqlite/media-links.js';
import { sqliteFile, storeOver } from '../../src/store/sqlite/open.js';
import { QUEUE_MIGRATIONS } from '../../src/store/sqlite/queue-schema.js';
import { sqliteQueueStore } from '../../src/store/sqlite/queue-sqlite.js';
import { twilioMigration } from '../../src/store/sqlite/twilio-sends.js';
import {
  type FakeTwilio,
  fakeTwilioSection,
  startFakeTwilio,
} from '../channels/twilio/helpers/fake-twilio.js';
import { smsParams, twilioPost } from '../channels/twilio/helpers/harness.js';
import { type Home, makeHome, waitFor } from '../e2e/helpers.js';
import { type FullDisk, fullDisk } from './full-disk.js';

interface Rig {
  home: Home;
  fake: FakeTwilio;
  disk: FullDisk;
  queue: Queue;
  url: string;
  inbox(): { text: string; status: string }[];
  close(): Promise<void>;
}

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

async function startRig(): Promise<Rig> {
  const fake = await startFakeTwilio();
  const home = makeHome({ twilio: fakeTwilioSection(fake) });
  const ctx = home.ctx();
  const real = openDb(sqliteFile(ctx.paths.home), [...QUEUE_MIGRATIONS, twilioMigration, mediaHostMigration]);
  const disk = fullDisk(real);
  const channel: TwilioChannel = createTwilioChannel({
    config: ctx.config,
    paths: ctx.paths,
    store: storeOver(disk.db),
    log: ctx.log.child({ sub: 'twilio' }),
    env: {},
    retryDelayMs: 5,
    storeRetry: { delaysMs: [20, 40, 80], maxHeld: 10, noticeAfterMs: 600 },
  });
  const queue = new Queue({
    store: sqliteQueueStore(disk.db),
    channels: new Map([['twilio', channel]]),
    resolve: agentResolver(ctx.config, ctx.paths, ctx.env, ctx.log.child({ sub: 'agent' })),
    mediaPolicy: mediaPolicy(ctx.config, ctx.paths.stagedMedia),
    config: ctx.config,
    log: ctx.log.child({ sub: 'queue' }),
    defaultCwd: ctx.paths.workspace,
    delivery: { retryForMs: 60_000, backoffMs: () => 5, waitMs: 5 },
    storeRetryMs: 5,
  });
  await queue.start();
  await channel.start(queue.handleInbound);
  return {
    home,
    fake,
    disk,
    queue,
    url: `http://127.0.0.1:${channel.port()}/twilio/inbound`,
    inbox: () =>
      real.prepare('SELECT text, status FROM inbox ORDER BY id').all() as { text: string; status: string }[],
    async close() {
      await channel.stop();
      await queue.shutdown(0);
      if (real.isOpen) real.close();
      await fake.close();
      home.cleanup();
    },
  };
}

const bodies = (r: Rig) => r.fake.created.map((m) => m.body);

describe('Twilio: the store refuses the inbound message', () => {
  it('for a moment: the webhook holds the message, stores it, answers 200, and it runs', async () => {
    rig = await startRig();
    rig.disk.failNext(2, /INSERT INTO inbox/);
    const res = await twilioPost(rig.url, smsParams({ Body: 'hello' }));
    expect(res.status).toBe(200);
    expect(rig.disk.refused).toBe(2);
    expect(await waitFor(() => rig!.fake.created.length > 0)).toBe(true);
    await rig.queue.whenIdle();
    expect(bodies(rig)).toEqual(['reply: hello']);
    expect(rig.inbox()).toEqual([{ text: 'hello', status: 'done' }]);
  });

  it('for good: a 5xx Twilio retries, then the sender is told by REST; nothing runs', async () => {
    rig = await startRig();
    rig.disk.fill(/INSERT INTO inbox/);
    const res = await twilioPost(rig.url, smsParams({ Body: 'hello' }));
    expect(res.status).toBeGreaterThanOrEqual(500);
    expect(res.status).toBeLessThan(600);
    // Held and tried again before answering: the first try and one per backoff step.
    expect(rig.disk.refused).toBe(4);
    await expect.poll(() => bodies(rig!), { timeout: 5000 }).toEqual([NOT_TAKEN_NOTICE]);
    expect(rig.inbox()).toEqual([]);
    expect(rig.home.events()).toEqual([]);
  });

  it("until Twilio's retry: the retry is stored and run, and the sender gets no notice", async () => {
    rig = await startRig();
    rig.disk.fill(/INSERT INTO inbox/);
    const params = smsParams({ Body: 'hello again' });
    expect((await twilioPost(rig.url, params)).status).toBe(503);
    rig.disk.free();
    // Twilio's retry of the same MessageSid (what `#rc=…&rp=all` makes it send).
    expect((await twilioPost(rig.url, params)).status).toBe(200);
    expect(await waitFor(() => rig!.fake.created.length > 0)).toBe(true);
    await rig.queue.whenIdle();
    await new Promise((r) => setTimeout(r, 800)); // past the notice time
    expect(bodies(rig)).toEqual(['reply: hello again']);
    expect(rig.inbox()).toEqual([{ text: 'hello again', status: 'done' }]);
  });
});

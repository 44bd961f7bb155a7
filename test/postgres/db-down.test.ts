// The store's PostgreSQL server goes away under a running relay (the built CLI) and comes back: a
// Twilio webhook that arrives meanwhile is answered 503 (Twilio retries it, with `#rc=3&rp=all` on
// the webhook URL), nothing is lost, the relay says so in one clear line, and once the server is
// back the retried delivery is taken and answered once. A cluster of its own (test/support/postgres.ts),
// stopped and started with pg_ctl, so the run's shared cluster is never touched.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type FakeTwilio,
  fakeTwilioSection,
  startFakeTwilio,
} from '../channels/twilio/helpers/fake-twilio.js';
import { postWhenUp, smsParams, twilioPost } from '../channels/twilio/helpers/harness.js';
import { freePort, type Home, MAIN, makeHome, type Proc, spawnNode, waitFor } from '../e2e/helpers.js';
import { type PgCluster, startPostgres } from '../support/postgres.js';
import { withDatabase } from '../support/postgres-db.js';

let cluster: PgCluster;
let home: Home;
let fake: FakeTwilio;
let relay: Proc;
let inbound: string;

/** The relay's log lines (JSON), from its log file in the state folder. */
function logLines(): { msg?: string; level?: number | string }[] {
  const dir = join(home.dir, 'logs');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .flatMap((f) => readFileSync(join(dir, f), 'utf8').split('\n'))
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { msg?: string });
}

beforeAll(async () => {
  expect(existsSync(MAIN), 'build first: npm run build').toBe(true);
  cluster = await startPostgres();
  const admin = new pg.Client(cluster.url);
  await admin.connect();
  await admin.query('CREATE DATABASE outage');
  await admin.end();
  fake = await startFakeTwilio();
  const port = await freePort();
  home = makeHome({
    twilio: fakeTwilioSection(fake, port),
    console: { enabled: false },
    store: { engine: 'postgres', url: withDatabase(cluster.url, 'outage') },
  });
  relay = spawnNode([MAIN, 'relay'], { ...home.env, TWILIO_ACCOUNT_SID: '', TWILIO_AUTH_TOKEN: '' });
  inbound = `http://127.0.0.1:${port}/twilio/inbound`;
}, 120_000);

afterAll(async () => {
  if (relay && relay.child.exitCode === null && relay.child.signalCode === null) {
    relay.child.kill('SIGTERM');
    await relay.exit;
  }
  await fake?.close();
  home?.cleanup();
  await cluster?.stop();
});

describe('the PostgreSQL server goes away under a running relay', () => {
  it('answers 503 meanwhile, logs it once, and takes and answers the retried message once it is back', async () => {
    const first = await postWhenUp(inbound, smsParams({ Body: 'before', MessageSid: `SM${'b'.repeat(32)}` }));
    expect(first.status, relay.stderr()).toBe(200);
    expect(await waitFor(() => fake.created.length === 1), relay.stderr()).toBe(true);

    await cluster.pause();
    const during = smsParams({ Body: 'during the outage', MessageSid: `SM${'c'.repeat(32)}` });
    const refused = await twilioPost(inbound, during);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    // A second delivery meanwhile (Twilio's retry) is refused the same way; the relay stays up.
    expect((await twilioPost(inbound, during)).status).toBe(503);
    expect(relay.child.exitCode).toBe(null);

    await cluster.resume();
    // Twilio retries until it gets a 2xx: the first tries after the restart may still meet the
    // connections the server dropped.
    let status = 0;
    for (const end = Date.now() + 45_000; status !== 200 && Date.now() < end; )
      status = (await twilioPost(inbound, during)).status;
    expect(status, relay.stderr()).toBe(200);
    expect(await waitFor(() => fake.created.length === 2), relay.stderr()).toBe(true);
    // One more delivery of the same MessageSid after it was taken: a duplicate, no second run.
    expect((await twilioPost(inbound, during)).status).toBe(200);
    const bodies = () => fake.created.map((m) => m.body);
    expect(bodies()).toEqual(['reply: before', 'reply: during the outage']);
    expect(home.events().filter((e) => e.ev === 'start')).toHaveLength(2);

    expect(
      await waitFor(() => logLines().some((l) => l.msg?.startsWith('the store is reachable again'))),
    ).toBe(true);
    const about = logLines().filter((l) => l.msg?.startsWith('the store cannot be reached'));
    expect(about, JSON.stringify(logLines().slice(-40))).toHaveLength(1);
  });
});

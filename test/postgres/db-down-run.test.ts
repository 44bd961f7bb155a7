// A run that finishes while the store's PostgreSQL server is away (the built relay, a cluster of its
// own stopped with `pg_ctl stop -m fast` mid-run and started again): the agent's reply cannot be
// written, so it is held, and once the server is back it is written and sent exactly once; the
// message is done after one run, and nothing else is lost or sent.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type FakeTwilio,
  fakeTwilioSection,
  startFakeTwilio,
} from '../channels/twilio/helpers/fake-twilio.js';
import { postWhenUp, smsParams } from '../channels/twilio/helpers/harness.js';
import { freePort, type Home, MAIN, makeHome, type Proc, spawnNode, waitFor } from '../e2e/helpers.js';
import { type PgCluster, startPostgres } from '../support/postgres.js';
import { withDatabase } from '../support/postgres-db.js';

let cluster: PgCluster;
let home: Home;
let fake: FakeTwilio;
let relay: Proc;
let inbound: string;
let url: string;

function logLines(): { msg?: string }[] {
  const dir = join(home.dir, 'logs');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .flatMap((f) => readFileSync(join(dir, f), 'utf8').split('\n'))
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { msg?: string });
}

async function rows<T>(sql: string): Promise<T[]> {
  const c = new pg.Client(url);
  await c.connect();
  try {
    return (await c.query(sql)).rows as T[];
  } finally {
    await c.end();
  }
}

beforeAll(async () => {
  expect(existsSync(MAIN), 'build first: npm run build').toBe(true);
  cluster = await startPostgres();
  const admin = new pg.Client(cluster.url);
  await admin.connect();
  await admin.query('CREATE DATABASE outage');
  await admin.end();
  url = withDatabase(cluster.url, 'outage');
  fake = await startFakeTwilio();
  const port = await freePort();
  home = makeHome({
    twilio: fakeTwilioSection(fake, port),
    console: { enabled: false },
    store: { engine: 'postgres', url },
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

describe('a run that finishes while the PostgreSQL server is away', () => {
  it('holds its reply until the server is back, then writes and sends it once', async () => {
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

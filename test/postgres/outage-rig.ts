// The built relay on a PostgreSQL cluster of its own, for the tests that stop the server under it
// (`pg_ctl stop -m fast`, then start): a cluster apart, so the run's shared cluster is never
// touched. A Twilio webhook in, a fake Twilio REST API out, the fake claude as the agent.
import { existsSync } from 'node:fs';
import pg from 'pg';
import { expect } from 'vitest';
import {
  type FakeTwilio,
  fakeTwilioSection,
  startFakeTwilio,
} from '../channels/twilio/helpers/fake-twilio.js';
import { freePort, type Home, MAIN, makeHome, type Proc, relayLogLines, spawnNode } from '../e2e/helpers.js';
import { type PgCluster, startPostgres } from '../support/postgres.js';
import { queryRows, withDatabase } from '../support/postgres-db.js';

export interface OutageRig {
  cluster: PgCluster;
  home: Home;
  fake: FakeTwilio;
  relay: Proc;
  /** The relay's webhook URL. */
  inbound: string;
  /** The relay's log lines (JSON), from its log files in the state folder. */
  logLines(): { msg?: string }[];
  /** Rows of a query on the relay's database, on a connection of its own. */
  rows<T>(sql: string): Promise<T[]>;
  /** Stops the relay (SIGTERM), the fake Twilio and the cluster, and removes the state folder. */
  stop(): Promise<void>;
}

export async function startOutageRig(): Promise<OutageRig> {
  expect(existsSync(MAIN), 'build first: npm run build').toBe(true);
  const cluster = await startPostgres();
  // What is made before a later step fails is undone here, since the caller gets no rig to stop.
  const undo: (() => unknown)[] = [() => cluster.stop()];
  try {
    const admin = new pg.Client(cluster.url);
    await admin.connect();
    await admin.query('CREATE DATABASE outage');
    await admin.end();
    const fake = await startFakeTwilio();
    undo.unshift(() => fake.close());
    const url = withDatabase(cluster.url, 'outage');
    const port = await freePort();
    const home = makeHome({
      twilio: fakeTwilioSection(fake, port),
      console: { enabled: false },
      store: { engine: 'postgres', url },
    });
    undo.unshift(() => home.cleanup());
    return rig({ cluster, fake, home, url, port });
  } catch (err) {
    for (const u of undo) await u();
    throw err;
  }
}

function rig(made: {
  cluster: PgCluster;
  fake: FakeTwilio;
  home: Home;
  url: string;
  port: number;
}): OutageRig {
  const { cluster, fake, home, url, port } = made;
  const relay = spawnNode([MAIN, 'relay'], { ...home.env, TWILIO_ACCOUNT_SID: '', TWILIO_AUTH_TOKEN: '' });
  return {
    cluster,
    home,
    fake,
    relay,
    inbound: `http://127.0.0.1:${port}/twilio/inbound`,
    logLines: () => relayLogLines(home.dir),
    rows: <T>(sql: string) => queryRows<T>(url, sql),
    async stop() {
      if (relay.child.exitCode === null && relay.child.signalCode === null) {
        relay.child.kill('SIGTERM');
        await relay.exit;
      }
      await fake.close();
      home.cleanup();
      await cluster.stop();
    },
  };
}

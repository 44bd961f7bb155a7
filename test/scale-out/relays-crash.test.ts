// The crash suite across relay processes at full size: three built relays on one PostgreSQL
// database (a throwaway cluster of its own), 50 chats × 20 messages through their signed webhooks,
// spread at random, while one relay is SIGKILLed every few seconds and restarted, 30 kills in all.
// Too long for CI (`npm run test:scale-out`, vitest.scale-out.config.ts); a smaller one runs in test:postgres
// (test/postgres/relays-crash.test.ts). What is checked: test/support/relays-crash.ts.
import { existsSync } from 'node:fs';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { MAIN } from '../e2e/helpers.js';
import { type PgCluster, startPostgres } from '../support/postgres.js';
import { withDatabase } from '../support/postgres-db.js';
import { type Fleet, makeFleet } from '../support/relay-fleet.js';
import { crashAcrossRelays } from '../support/relays-crash.js';

let fleet: Fleet | undefined;
let cluster: PgCluster | undefined;
afterEach(async () => {
  await fleet?.close();
  await cluster?.stop();
});

describe('three relays on one database, 30 SIGKILLs, 50 chats × 20 messages', () => {
  it('loses nothing, sends each reply once in order, and re-runs only what a kill cut', async () => {
    expect(existsSync(MAIN), 'build first: npm run build').toBe(true);
    cluster = await startPostgres();
    const admin = new pg.Client(cluster.url);
    await admin.connect();
    await admin.query('CREATE DATABASE relays');
    await admin.end();
    const url = withDatabase(cluster.url, 'relays');
    fleet = await makeFleet(url, 3, { queue: { whileBusy: 'followup' } });
    await crashAcrossRelays(fleet, url, {
      chats: 50,
      perChat: 20,
      kills: 30,
      killGapMs: [2000, 4000],
      sendGapMs: 9000,
      quietMs: 240_000,
    });
  }, 900_000);
});

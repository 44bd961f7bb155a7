// The crash suite across relay processes, small enough for `npm run test:postgres`: three built
// relays on one database, 10 chats × 6 messages through their webhooks, 8 SIGKILLs (one relay at a
// time, restarted at once). The full size (50 chats × 20 messages, 30 kills) runs in test:scale-out
// (test/scale-out/relays-crash.test.ts). What is checked: test/support/relays-crash.ts.
import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { MAIN } from '../e2e/helpers.js';
import { freshDatabase } from '../support/postgres-db.js';
import { type Fleet, makeFleet } from '../support/relay-fleet.js';
import { crashAcrossRelays } from '../support/relays-crash.js';

let fleet: Fleet | undefined;
afterEach(async () => {
  await fleet?.close();
});

describe('three relays on one database, one SIGKILLed every few seconds', () => {
  it('loses nothing, sends each reply once in order, and re-runs only what a kill cut', async () => {
    expect(existsSync(MAIN), 'build first: npm run build').toBe(true);
    const url = await freshDatabase();
    fleet = await makeFleet(url, 3, { queue: { whileBusy: 'followup' } });
    await crashAcrossRelays(fleet, url, {
      chats: 10,
      perChat: 6,
      kills: 8,
      killGapMs: [1000, 2500],
      sendGapMs: 400,
      quietMs: 30_000,
    });
  }, 150_000);
});

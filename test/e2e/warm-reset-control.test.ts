// `agentwire agent warm-reset` while a relay runs goes through its control socket: the relay's pool
// read the remembered failure from the store at start (status shows it), and the reset makes the
// pool and the store forget it. The relay in this process (startRelay), the built CLI as a child.
import { existsSync } from 'node:fs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CHANNELS } from '../../src/channels/registry.js';
import { callControl } from '../../src/control/client.js';
import { WARM_STATE, warmMemory } from '../../src/drivers/warm-memory.js';
import { type RunningRelay, startRelay } from '../../src/relay.js';
import { openSqliteStore, sqliteFile } from '../../src/store/sqlite/open.js';
import { readChannelValueFile } from '../../src/store/sqlite/status-read.js';
import {
  type FakeTwilio,
  fakeTwilioSection,
  startFakeTwilio,
} from '../channels/twilio/helpers/fake-twilio.js';
import { type Home, MAIN, makeHome, spawnNode } from './helpers.js';

let home: Home | undefined;
let relay: RunningRelay | undefined;
let fake: FakeTwilio | undefined;
afterEach(async () => {
  await relay?.stop(0);
  await fake?.close();
  fake = undefined;
  home?.cleanup();
  relay = undefined;
  home = undefined;
});
beforeAll(() => {
  expect(existsSync(MAIN), 'build first: npm run build').toBe(true);
});

const status = async (socket: string): Promise<string> => {
  const r = await callControl(socket, 'status', {}, { timeoutMs: 10_000 });
  if (!r.ok) throw new Error(r.error);
  return JSON.stringify(r.result);
};

describe('warm-reset through a running relay', () => {
  it('the pool shows the remembered failure, and the reset forgets it in the pool and the store', async () => {
    fake = await startFakeTwilio();
    home = makeHome({
      agent: { kind: 'codex', mode: 'warm', command: [process.execPath, '/nowhere.mjs'] },
      twilio: fakeTwilioSection(fake),
    });
    const ctx = home.ctx();
    const seeded = await openSqliteStore(sqliteFile(ctx.paths.home));
    await warmMemory(seeded.channelState(WARM_STATE.channel)).save({
      codex: { fingerprint: 'f', reason: 'timeout: no answer to its start within 20 s', at: 1 },
    });
    await seeded.close();
    relay = await startRelay(ctx, { channels: CHANNELS.filter((f) => f.name === 'twilio'), services: [] });
    const socket = ctx.paths.socket;
    expect(await status(socket)).toContain('timeout: no answer to its start within 20 s');

    const reset = spawnNode([MAIN, 'agent', 'warm-reset', 'codex'], home.env);
    expect((await reset.exit).code, reset.stderr()).toBe(0);
    expect(reset.stdout()).toBe('Forgotten: codex. The next message tries it live again.\n');
    expect(await status(socket)).not.toContain('no answer to its start');
    expect(readChannelValueFile(sqliteFile(ctx.paths.home), 'warm', 'fallbacks')).toBeUndefined();
    // Nothing more to forget.
    const again = spawnNode([MAIN, 'agent', 'warm-reset'], home.env);
    expect((await again.exit).code).toBe(0);
    expect(again.stdout()).toBe('No failed warm start was remembered.\n');
  });
});

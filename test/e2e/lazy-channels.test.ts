// A channel's library loads only when the channel is on: Baileys costs a relay about 165 ms of
// start-up and 55 MB that a Twilio-only relay never uses, and commands that only read the store
// (status, doctor, schedules) need neither library. Checked on the built binary with a preload that
// records every file the process loads from node_modules.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  ACCOUNT,
  type FakeTwilio,
  fakeTwilioSection,
  startFakeTwilio,
  TOKEN,
} from '../channels/twilio/helpers/fake-twilio.js';
import { postWhenUp, smsParams } from '../channels/twilio/helpers/harness.js';
import { freePort, type Home, MAIN, makeHome, type Proc, ROOT, spawnNode, waitFor } from './helpers.js';

const RECORDER = join(ROOT, 'test/e2e/fixtures/record-packages.mjs');

let home: Home | undefined;
let fake: FakeTwilio | undefined;
const procs: Proc[] = [];
afterEach(async () => {
  for (const p of procs.splice(0))
    if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  await fake?.close();
  fake = undefined;
  home?.cleanup();
  home = undefined;
});
beforeAll(() => {
  expect(existsSync(MAIN), 'build first: npm run build').toBe(true);
});

/** Runs the binary with the recorder; resolves with the node_modules files it loaded. */
function recorded(h: Home, args: string[]): { proc: Proc; loaded: () => string[] } {
  const out = join(h.dir, `loaded-${procs.length}.txt`);
  const proc = spawnNode(['--import', RECORDER, MAIN, ...args], { ...h.env, RECORD_PACKAGES: out });
  procs.push(proc);
  return { proc, loaded: () => readFileSync(out, 'utf8').split('\n').filter(Boolean) };
}

const from = (files: string[], pkg: string) => files.filter((f) => f.startsWith(`${pkg}/`));

describe('channel libraries load only for an enabled channel', () => {
  it('a Twilio-only relay answers a webhook without loading Baileys', async () => {
    fake = await startFakeTwilio();
    const port = await freePort();
    home = makeHome({
      twilio: fakeTwilioSection(fake, port),
    });
    const { proc, loaded } = recorded(home, ['relay']);
    const url = `http://127.0.0.1:${port}/twilio/inbound`;
    const res = await postWhenUp(url, smsParams({ Body: 'hello agent' }));
    expect(res.status, proc.stderr()).toBe(200);
    expect(await waitFor(() => (fake?.created.length ?? 0) > 0)).toBe(true);
    proc.child.kill('SIGTERM');
    expect((await proc.exit).code).toBe(0);

    const files = loaded();
    expect(from(files, 'twilio').length).toBeGreaterThan(0);
    // Baileys' JID helpers come from their own import-free file; nothing else of the package loads.
    expect(from(files, '@whiskeysockets/baileys')).toEqual([
      '@whiskeysockets/baileys/lib/WABinary/jid-utils.js',
    ]);
    expect(from(files, 'libsignal')).toEqual([]);
    expect(from(files, 'grammy')).toEqual([]);
    expect(from(files, '@slack')).toEqual([]);
    // Nor the library of an agent it does not run: ACP's loads with the first ACP process.
    expect(from(files, '@agentclientprotocol/sdk')).toEqual([]);
  });

  it.each([['status'], ['doctor', '--json'], ['schedules']])(
    '`agentwire %s` with both channels on loads neither library',
    async (...args) => {
      home = makeHome({
        whatsapp: { enabled: true },
        twilio: { enabled: true, accountSid: ACCOUNT, authToken: TOKEN, from: '+15550000000' },
      });
      const { proc, loaded } = recorded(home, args);
      const exit = await proc.exit;
      expect(exit.signal, proc.stderr()).toBeNull();
      expect(proc.stdout().length, proc.stderr()).toBeGreaterThan(0);
      const files = loaded();
      expect(from(files, 'commander').length).toBeGreaterThan(0);
      expect(from(files, 'twilio')).toEqual([]);
      expect(from(files, '@slack')).toEqual([]);
      expect(from(files, '@whiskeysockets/baileys').filter((f) => !f.endsWith('/jid-utils.js'))).toEqual([]);
    },
  );
});

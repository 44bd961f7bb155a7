// agentwire send: the target and file checks (pure), then the built binary through a running relay
// (a real relay process with a test channel) and on its own against a fake Twilio REST server.

import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { channelNames } from '../../src/channels/registry.js';
import { parseTarget, resolveMedia } from '../../src/cli/send.js';
import { configSchema } from '../../src/config/schema.js';
import { ACCOUNT, startFakeTwilio, TOKEN } from '../channels/twilio/helpers/fake-twilio.js';
import { type Home, MAIN, makeHome, type Proc, RELAY_SCRIPT, spawnNode, waitFor } from '../e2e/helpers.js';
import { tempDir } from '../helpers/tmp.js';

const both = configSchema.parse({ twilio: { enabled: true } });
const twilioOnly = configSchema.parse({ whatsapp: { enabled: false }, twilio: { enabled: true } });

describe('parseTarget', () => {
  it.each([
    ['+15551234567', undefined, both, { channel: 'whatsapp', to: '+15551234567' }],
    ['+15551234567', undefined, twilioOnly, { channel: 'twilio', to: '+15551234567' }],
    ['twilio:+15551234567', undefined, both, { channel: 'twilio', to: '+15551234567' }],
    ['twilio:whatsapp:+15551234567', undefined, both, { channel: 'twilio', to: 'whatsapp:+15551234567' }],
    ['whatsapp:+15551234567', undefined, twilioOnly, { channel: 'whatsapp', to: '+15551234567' }],
    ['120363025246125244@g.us', 'whatsapp', both, { channel: 'whatsapp', to: '120363025246125244@g.us' }],
  ])('%s (--channel %s)', (to, channel, config, want) => {
    expect(parseTarget(to, channel, config)).toEqual(want);
  });

  it.each([
    ['5551234567', undefined, 'E.164'],
    ['+15551234567', 'sms', `--channel must be ${channelNames(false)} (got sms)`],
    ['--resume', undefined, 'E.164'],
    ['twilio:120363025246125244@g.us', undefined, 'E.164'],
  ])('refuses %s', (to, channel, message) => {
    expect(parseTarget(to, channel, both)).toEqual(expect.stringContaining(message));
  });
});

describe('resolveMedia', () => {
  it('resolves files to real paths, keeps https URLs, refuses the rest', () => {
    const dir = tempDir('aw-send-');
    writeFileSync(join(dir, 'a.txt'), 'a');
    symlinkSync(join(dir, 'a.txt'), join(dir, 'link.txt'));
    mkdirSync(join(dir, 'sub'));
    expect(resolveMedia([join(dir, 'link.txt'), 'https://example.com/x.png'])).toEqual([
      join(dir, 'a.txt'),
      'https://example.com/x.png',
    ]);
    expect(resolveMedia([join(dir, 'missing.txt')])).toContain('no such file');
    expect(resolveMedia([join(dir, 'sub')])).toContain('not a regular file');
    expect(resolveMedia(['http://127.0.0.1/x'])).toContain('no such file');
  });
});

let home: Home | undefined;
const procs: Proc[] = [];
afterEach(() => {
  for (const p of procs.splice(0)) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  home?.cleanup();
  home = undefined;
});

describe('agentwire send (built binary)', () => {
  it('goes through the running relay, with a file the owner named outside the agent folder', async () => {
    home = makeHome();
    const sent = join(home.dir, 'sent.jsonl');
    const relay = spawnNode([RELAY_SCRIPT, join(home.dir, 'in.sock'), sent], home.env);
    procs.push(relay);
    expect(await waitFor(() => relay.stdout().includes('ready'))).toBe(true);
    const file = join(tempDir('aw-owner-'), 'report.pdf');
    writeFileSync(file, '%PDF-1.4 test');
    const p = spawnNode(
      [MAIN, 'send', '--to', 'twilio:+15550002222', '-m', 'build is green', '--media', file],
      home.env,
    );
    expect(await p.exit).toEqual({ code: 0, signal: null });
    expect(p.stdout()).toContain('Sent to twilio:+15550002222 by the running relay.');
    expect(await waitFor(() => readSent(sent).length === 2)).toBe(true);
    const items = readSent(sent);
    expect(items[0]).toMatchObject({
      chatId: '+15550002222',
      item: { type: 'text', text: 'build is green' },
    });
    // What goes out is the copy staged when the file was checked, in the relay's private folder.
    expect(items[1]).toMatchObject({
      chatId: '+15550002222',
      item: { type: 'file', fileName: 'report.pdf' },
    });
    const staged = (items[1]!.item as { path: string }).path;
    expect(staged.startsWith(join(home.dir, 'media', 'staged'))).toBe(true);
    expect(readFileSync(staged, 'utf8')).toBe('%PDF-1.4 test');
  });

  it('without a relay, sends over Twilio REST directly, once', async () => {
    const fake = await startFakeTwilio();
    try {
      home = makeHome({
        twilio: { enabled: true, accountSid: ACCOUNT, from: '+15550000000', apiBaseUrl: fake.url },
      });
      const env = { ...home.env, TWILIO_AUTH_TOKEN: TOKEN };
      const p = spawnNode([MAIN, 'send', '--to', '+15557654321', '-m', 'deploy done'], env);
      const exit = await p.exit;
      expect(exit.code, p.stderr()).toBe(0);
      expect(p.stdout()).toContain('Sent to twilio:+15557654321');
      expect(fake.created.map((m) => [m.to, m.body])).toEqual([['+15557654321', 'deploy done']]);

      const file = join(home.dir, 'a.png');
      writeFileSync(file, 'png');
      const local = spawnNode([MAIN, 'send', '--to', '+15557654321', '--media', file], env);
      expect((await local.exit).code).toBe(1);
      expect(local.stderr()).toContain('only a running relay serves local files');
      expect(fake.created).toHaveLength(1);
    } finally {
      await fake.close();
    }
  });

  it('refuses a bad target before doing anything', async () => {
    home = makeHome();
    const none = spawnNode([MAIN, 'send', '--to', '+15551234567', '-m', 'x'], home.env);
    expect((await none.exit).code).toBe(2);
    expect(none.stderr()).toContain('no channel is enabled');
    const p = spawnNode([MAIN, 'send', '--channel', 'twilio', '--to', 'nobody', '-m', 'x'], home.env);
    expect((await p.exit).code).toBe(2);
    expect(p.stderr()).toContain('E.164');
  });
});

function readSent(file: string): { chatId: string; item: Record<string, unknown> }[] {
  try {
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
  } catch {
    return [];
  }
}

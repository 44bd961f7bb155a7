// The built relay (dist/, a process of its own) with the real Slack channel: envelopes from the fake
// Slack on 127.0.0.1 (Web API and Socket Mode, the far edge) reach the queue through the registry's
// plugin, the fake CLI answers as a real child process, and replies leave by chat.postMessage and
// files.uploadV2. Real SQLite holds the inbox and the channel's state across a restart. Needs `npm run build`.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { channelStateStore } from '../../src/store/sqlite/channel-state.js';
import { openDb } from '../../src/store/sqlite/db.js';
import { QUEUE_MIGRATIONS } from '../../src/store/sqlite/queue-schema.js';
import {
  APP_TOKEN,
  BOT_TOKEN,
  BOT_USER,
  type FakeSlack,
  messageEvent,
  startFakeSlack,
} from '../channels/slack/fake-slack.js';
import { type Home, MAIN, makeHome, type Proc, spawnNode, waitFor } from './helpers.js';

// Starting the built relay on a machine loaded by other jobs can take most of the default bound.
const SLOW = 60_000;
const OWNER = 'U0OWNER01';
const DM = 'D0DM00001';
const CHAN = 'C0CHAN001';

let home: Home | undefined;
let fake: FakeSlack | undefined;
let proc: Proc | undefined;
afterEach(async () => {
  await stopRelay();
  await fake?.close();
  home?.cleanup();
  fake = undefined;
  home = undefined;
});
beforeAll(() => {
  expect(existsSync(MAIN), 'build first: npm run build').toBe(true);
});

const logFiles = (dir: string): string[] =>
  existsSync(dir)
    ? readdirSync(dir).flatMap((f) =>
        statSync(join(dir, f)).isDirectory() ? logFiles(join(dir, f)) : [join(dir, f)],
      )
    : [];

const env = () => ({ ...home!.env, SLACK_BOT_TOKEN: BOT_TOKEN, SLACK_APP_TOKEN: APP_TOKEN });

async function startRelay(): Promise<void> {
  const before = fake!.callsOf('apps.connections.open').length;
  proc = spawnNode([MAIN, 'relay'], env());
  const up = await waitFor(
    () => fake!.sockets() > 0 && fake!.callsOf('apps.connections.open').length > before,
    SLOW,
  );
  expect(up, proc.stderr()).toBe(true);
}

async function stopRelay(): Promise<void> {
  if (proc && proc.child.exitCode === null && proc.child.signalCode === null) {
    proc.child.kill('SIGTERM');
    await proc.exit;
  }
  proc = undefined;
  // The relay's Socket Mode link is gone once it stopped.
  await waitFor(() => (fake?.sockets() ?? 0) === 0, 10_000);
}

async function setup(extra: Record<string, unknown> = {}): Promise<void> {
  fake = await startFakeSlack();
  home = makeHome({
    slack: { enabled: true, apiUrl: fake.apiUrl, allowFrom: [OWNER], channels: [CHAN] },
    console: { enabled: false },
    ...extra,
  });
  await startRelay();
}

const posts = (channel?: string) =>
  fake!.callsOf('chat.postMessage').filter((c) => channel === undefined || c.params.channel === channel);
const texts = (channel?: string) => posts(channel).map((c) => String(c.params.text));
const runs = () => home!.events().filter((e) => e.ev === 'start');

/** Pushes a message event and waits for its envelope's acknowledgement. */
async function push(
  e: Parameters<typeof messageEvent>[0],
  opts: Parameters<typeof messageEvent>[1] = {},
  retryAttempt = 0,
) {
  const payload = messageEvent(e, opts);
  const id = fake!.push(payload, { retryAttempt });
  expect(await waitFor(() => fake!.acks.includes(id), SLOW), proc?.stderr()).toBe(true);
  return payload;
}

describe('agentwire relay with the Slack channel (Socket Mode)', () => {
  it('answers a DM; in a channel only a mention runs; Markdown goes out as escaped mrkdwn', {
    timeout: 4 * SLOW,
  }, async () => {
    await setup();
    await push({ channel: DM, user: OWNER, text: 'hello agent' });
    expect(await waitFor(() => texts(DM).length === 1, SLOW), proc?.stderr()).toBe(true);
    expect(texts(DM)).toEqual(['reply: hello agent']);

    await push({ channel: CHAN, user: OWNER, text: 'just chatting, no mention' });
    await push({ channel: CHAN, user: OWNER, text: `<@${BOT_USER}> deploy status?` });
    expect(await waitFor(() => texts(CHAN).length === 1, SLOW), proc?.stderr()).toBe(true);
    // In a channel the agent is told who spoke; the mention itself is not part of what was said.
    expect(texts(CHAN)).toEqual([`reply: [Message from ${OWNER}]\ndeploy status?`]);
    expect(
      runs()
        .map((r) => r.prompt)
        .join('\n'),
    ).not.toContain('just chatting');

    // What the person types arrives escaped by Slack; the agent's echo of it must go back escaped.
    const table: [string, string][] = [
      ['&lt;!channel&gt; **now**', 'reply: &lt;!channel&gt; *now*'],
      ['ping &lt;@U0OTHER01&gt; &amp; co', 'reply: ping &lt;@U0OTHER01&gt; &amp; co'],
      ['[site](https://example.com/?a=1&amp;b=2)', 'reply: <https://example.com/?a=1&amp;b=2|site>'],
      [
        '&lt;https://evil.example|https://bank.example&gt;',
        'reply: &lt;https://evil.example|https://bank.example&gt;',
      ],
      ['`a &lt; b` ~~old~~', 'reply: `a &lt; b` ~old~'],
    ];
    for (const [i, [input, expected]] of table.entries()) {
      await push({ channel: DM, user: OWNER, text: input });
      expect(await waitFor(() => texts(DM).length === 2 + i, SLOW), proc?.stderr()).toBe(true);
      expect(texts(DM)[1 + i]).toBe(expected);
    }
  });

  it('SIGTERM while Slack never answers auth.test: the request ends with the stop and the relay exits 0', {
    timeout: 2 * SLOW,
  }, async () => {
    fake = await startFakeSlack();
    fake.failNext('auth.test', { hang: true, body: {} });
    home = makeHome({
      slack: { enabled: true, apiUrl: fake.apiUrl, allowFrom: [OWNER], channels: [CHAN] },
      console: { enabled: false },
    });
    proc = spawnNode([MAIN, 'relay'], env());
    expect(await waitFor(() => fake!.callsOf('auth.test').length > 0, SLOW), proc.stderr()).toBe(true);
    proc.child.kill('SIGTERM');
    // The stop waited for the Slack client's two-minute timeout, then for the relay's 10 s bound on
    // a channel's stop (channels/stop-within.ts); now the request ends with it.
    expect((await proc.exit).code).toBe(0);
    expect(proc.stderr()).not.toMatch(/channel did not stop in time/);
    expect(fake.sockets()).toBe(0);
  });

  it('runs an event once when Slack delivers it again after a relay restart', {
    timeout: 4 * SLOW,
  }, async () => {
    await setup();
    const first = await push(
      { channel: DM, user: OWNER, text: 'only once please', ts: '1700000100.000100' },
      { eventId: 'Ev0ONCE0001' },
    );
    expect(await waitFor(() => texts(DM).length === 1, SLOW), proc?.stderr()).toBe(true);
    await stopRelay();
    // Kept through the channel's state port, in the relay's own database.
    const db = openDb(join(home!.dir, 'agentwire.db'), QUEUE_MIGRATIONS);
    const handled = await channelStateStore(db, 'slack').get<string[]>('handled');
    db.close();
    expect(handled).toEqual(expect.arrayContaining(['e:Ev0ONCE0001', 'm:c-Ev0ONCE0001']));
    await startRelay();
    // The same envelope content (event id, client message id, ts), delivered again as Slack retries it.
    const id = fake!.push(first, { retryAttempt: 1 });
    expect(await waitFor(() => fake!.acks.includes(id), SLOW), proc?.stderr()).toBe(true);
    await push({ channel: DM, user: OWNER, text: 'a new one' });
    expect(await waitFor(() => texts(DM).length === 2, SLOW), proc?.stderr()).toBe(true);
    expect(texts(DM)).toEqual(['reply: only once please', 'reply: a new one']);
    expect(runs().map((r) => r.prompt)).toEqual(['only once please', 'a new one']);
  });

  it('takes a file in (downloaded with the bot token) and sends one out with files.uploadV2', {
    timeout: 4 * SLOW,
  }, async () => {
    await setup({ media: { allowedRoots: ['/tmp'] } });
    const outFile = join(home!.dir, 'chart.png');
    writeFileSync(outFile, Buffer.from('PNG-BYTES-OUT'));
    const bytes = Buffer.from('%PDF-1.4 inbound report');
    const url = fake!.addFile('F0FILE001', 'report.pdf', bytes);
    await push({
      channel: DM,
      user: OWNER,
      text: `here is the report media:${outFile}`,
      subtype: 'file_share',
      files: [
        {
          id: 'F0FILE001',
          name: 'report.pdf',
          mimetype: 'application/pdf',
          size: bytes.length,
          url_private_download: url,
        },
      ],
    });
    expect(
      await waitFor(() => fake!.callsOf('files.completeUploadExternal').length === 1, SLOW),
      proc?.stderr(),
    ).toBe(true);
    expect([...fake!.uploads.values()][0]!.toString()).toBe('PNG-BYTES-OUT');
    expect(fake!.callsOf('files.completeUploadExternal')[0]?.params).toMatchObject({ channel_id: DM });
    expect(fake!.downloads).toBe(1);
    const prompt = runs()[0]?.prompt ?? '';
    const saved = /(\/\S+\.pdf)/.exec(prompt)?.[1];
    expect(saved, prompt).toBeDefined();
    expect(readFileSync(saved!)).toEqual(bytes);
  });

  it('waits out a 429 then delivers; a chat Slack refuses (not_in_channel) stops and shows in status', {
    timeout: 4 * SLOW,
  }, async () => {
    await setup();
    const proc0 = proc!;
    fake!.failNext('chat.postMessage', {
      status: 429,
      headers: { 'retry-after': '1' },
      body: { ok: false, error: 'ratelimited' },
    });
    await push({ channel: DM, user: OWNER, text: 'slow down' });
    expect(await waitFor(() => texts(DM).length === 2, SLOW), proc?.stderr()).toBe(true);
    const [limited, sent] = posts(DM);
    expect(sent!.params.text).toBe('reply: slow down');
    expect(sent!.at - limited!.at).toBeGreaterThanOrEqual(1000);

    fake!.failNext('chat.postMessage', { body: { ok: false, error: 'not_in_channel' } });
    await push({ channel: CHAN, user: OWNER, text: `<@${BOT_USER}> are you there?` });
    expect(await waitFor(() => posts(CHAN).length === 1, SLOW), proc?.stderr()).toBe(true);
    const status = spawnNode([MAIN, 'status'], env());
    await status.exit;
    expect(status.stdout()).toMatch(/slack .*sends stopped to 1 chat/);
    const send = spawnNode([MAIN, 'send', '--to', `slack:${CHAN}`, '-m', 'still there?'], env());
    expect(await send.exit).toEqual({ code: 1, signal: null });
    expect(send.stderr()).toContain('sends to this Slack chat stopped: not_in_channel');
    // Never retried against Slack: the one refused call is all it got.
    expect(posts(CHAN)).toHaveLength(1);
    // The relay's log says so, and holds neither token nor a message body.
    await stopRelay();
    const logs = [
      proc0.stderr(),
      ...logFiles(join(home!.dir, 'logs')).map((f) => readFileSync(f, 'utf8')),
    ].join('\n');
    expect(logs).toContain('slack refused this chat: sends to it stop');
    for (const secret of [BOT_TOKEN, APP_TOKEN, 'are you there?', 'slow down'])
      expect(logs).not.toContain(secret);
  });
});

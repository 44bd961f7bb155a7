// The Slack channel against the fake Slack on 127.0.0.1 (Web API and Socket Mode), with a recording
// inbound handler: what is acknowledged when, what is gated, deduped, downloaded and sent.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSlackChannel, type SlackChannel } from '../../../src/channels/slack/channel.js';
import { memoryStateStore } from '../../../src/channels/telegram/state.js';
import type { InboundOutcome } from '../../../src/channels/types.js';
import { configSchema } from '../../../src/config/schema.js';
import type { InboundMessage } from '../../../src/core/types.js';
import type { ChannelStateStore } from '../../../src/store/channel-state.js';
import { waitFor } from '../../e2e/helpers.js';
import { memoryLog } from '../../queue/helpers.js';
import {
  APP_TOKEN,
  BOT_TOKEN,
  BOT_USER,
  type FakeSlack,
  messageEvent,
  startFakeSlack,
} from './fake-slack.js';

const OWNER = 'U0OWNER01';
const STRANGER = 'U0STRANGE';
let fake: FakeSlack | undefined;
let channel: SlackChannel | undefined;
let dir: string | undefined;
afterEach(async () => {
  await channel?.stop();
  await fake?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  channel = fake = dir = undefined;
});

interface Rig {
  got: InboundMessage[];
  outcome: { next: InboundOutcome['type'] };
  state: ChannelStateStore;
  lines: Record<string, unknown>[];
  slept: number[];
}

async function start(
  extra: Record<string, unknown> = {},
  state = memoryStateStore(),
  env: NodeJS.ProcessEnv = { SLACK_BOT_TOKEN: BOT_TOKEN, SLACK_APP_TOKEN: APP_TOKEN },
  opts: { helloTimeoutMs?: number; connected?: boolean } = {},
): Promise<Rig> {
  fake ??= await startFakeSlack();
  dir ??= mkdtempSync(join(tmpdir(), 'aw-slack-'));
  const config = configSchema.parse({
    whatsapp: { enabled: false },
    slack: { enabled: true, apiUrl: fake.apiUrl, allowFrom: [OWNER], channels: ['C0CHAN001'], ...extra },
  });
  const { log, lines } = memoryLog();
  const rig: Rig = { got: [], outcome: { next: 'stored' }, state, lines, slept: [] };
  channel = createSlackChannel({
    config,
    paths: { inboundMedia: join(dir, 'in') },
    log,
    state,
    env,
    sleep: async (ms) => {
      rig.slept.push(ms);
    },
    handlerRetryDelaysMs: [],
    helloTimeoutMs: opts.helloTimeoutMs ?? 500,
  });
  await channel.start(async (msg) => {
    rig.got.push(msg);
    const type = rig.outcome.next;
    return type === 'stored'
      ? { type, inboxId: rig.got.length }
      : type === 'failed'
        ? { type, error: 'disk full' }
        : ({ type } as InboundOutcome);
  });
  if (env.SLACK_APP_TOKEN !== APP_TOKEN || opts.connected === false) return rig;
  await fake.waitSocket();
  expect(await waitFor(() => channel!.status().type === 'connected', 10_000)).toBe(true);
  return rig;
}

describe('Slack channel (Socket Mode)', () => {
  it('passes a DM on and acknowledges its envelope only after the handler stored it', async () => {
    const rig = await start();
    const env = fake!.push(
      messageEvent({ channel: 'D0DM00001', user: OWNER, text: 'hello &lt;agent&gt; <@U0OTHER1>' }),
    );
    expect(await waitFor(() => fake!.acks.includes(env))).toBe(true);
    expect(rig.got).toHaveLength(1);
    expect(rig.got[0]).toMatchObject({
      channel: 'slack',
      chatId: 'D0DM00001',
      senderId: OWNER,
      isGroup: false,
      text: 'hello <agent> @U0OTHER1',
    });
    expect(channel!.status()).toMatchObject({ type: 'connected', account: '@agentbot' });
  });

  it('opens a new link when Slack closes the socket, and hears messages on it', async () => {
    const rig = await start();
    fake!.dropSockets();
    expect(
      await waitFor(() => fake!.callsOf('apps.connections.open').length === 2 && fake!.sockets() === 1),
    ).toBe(true);
    expect(await waitFor(() => channel!.status().type === 'connected')).toBe(true);
    const env = fake!.push(messageEvent({ channel: 'D0DM00001', user: OWNER, text: 'still there?' }));
    expect(await waitFor(() => fake!.acks.includes(env))).toBe(true);
    expect(rig.got.map((m) => m.text)).toEqual(['still there?']);
  });

  it('a new link that cannot be opened at first is tried again (no unhandled rejection ends the process)', async () => {
    await start();
    const refused = { status: 503, body: { ok: false, error: 'service_unavailable' } };
    for (let i = 0; i < 4; i++) fake!.failNext('apps.connections.open', refused);
    fake!.dropSockets();
    expect(await waitFor(() => channel!.status().type === 'connecting')).toBe(true);
    expect(await waitFor(() => fake!.sockets() === 1 && channel!.status().type === 'connected', 30_000)).toBe(
      true,
    );
    expect(fake!.callsOf('apps.connections.open').length).toBeGreaterThanOrEqual(6);
  });

  it('a link that never says hello is dropped and a new one opened', async () => {
    fake = await startFakeSlack();
    fake.silentLinks(1);
    const rig = await start();
    // The rig saw a link and a connected channel: the silent one was dropped, the second said hello.
    expect(await waitFor(() => fake!.sockets() === 1 && channel!.status().type === 'connected')).toBe(true);
    expect(fake.callsOf('apps.connections.open')).toHaveLength(2);
    expect(fake.sockets()).toBe(1);
    const env = fake.push(messageEvent({ channel: 'D0DM00001', user: OWNER, text: 'hello?' }));
    expect(await waitFor(() => fake!.acks.includes(env))).toBe(true);
    expect(rig.got).toHaveLength(1);
  });

  it('a stop while the new link has not said hello ends at once, and opens no other link', async () => {
    fake = await startFakeSlack();
    fake.silentLinks(1);
    // Longer than the test's own limit: a stop that waits for the hello timeout fails the test.
    await start({}, memoryStateStore(), undefined, { helloTimeoutMs: 120_000, connected: false });
    await fake.waitSocket();
    await channel!.stop();
    expect(await waitFor(() => fake!.sockets() === 0, 10_000)).toBe(true);
    expect(fake.callsOf('apps.connections.open')).toHaveLength(1);
    expect(channel!.status().type).toBe('stopped');
  });

  it('a wrong app-level token: degraded, saying which token, and not retried forever', async () => {
    await start({}, memoryStateStore(), {
      SLACK_BOT_TOKEN: BOT_TOKEN,
      SLACK_APP_TOKEN: 'xapp-1-A0FAKE-0000000000-WrongAppToken',
    });
    expect(await waitFor(() => channel!.status().type === 'degraded', 10_000)).toBe(true);
    expect(channel!.status()).toMatchObject({
      lastError: 'Slack rejected the app-level token (invalid_auth)',
    });
    expect(fake!.callsOf('apps.connections.open')).toHaveLength(1);
  });

  it('does not acknowledge an envelope whose message could not be stored, and runs a retry once', async () => {
    const rig = await start();
    rig.outcome.next = 'failed';
    const payload = messageEvent(
      { channel: 'D0DM00001', user: OWNER, text: 'first' },
      { eventId: 'Ev0FAIL01' },
    );
    const env = fake!.push(payload);
    expect(await waitFor(() => rig.got.length === 1)).toBe(true);
    // The handler answered `failed`: no ack, so Slack delivers it again.
    expect(await waitFor(() => rig.lines.some((l) => l.outcome === 'failed'), 5_000)).toBe(true);
    expect(fake!.acks).not.toContain(env);
    rig.outcome.next = 'stored';
    const again = fake!.push(payload, { retryAttempt: 1 });
    expect(await waitFor(() => fake!.acks.includes(again))).toBe(true);
    expect(rig.got).toHaveLength(2);
    // A third delivery of the now stored event is acknowledged without reaching the handler.
    const third = fake!.push(payload, { retryAttempt: 2 });
    expect(await waitFor(() => fake!.acks.includes(third))).toBe(true);
    expect(rig.got).toHaveLength(2);
  });

  it('gates channels on mentions; a reply in a thread the bot is in needs none; strangers and bots are ignored', async () => {
    const rig = await start();
    const ack = async (p: Record<string, unknown>) => {
      const id = fake!.push(p);
      expect(await waitFor(() => fake!.acks.includes(id))).toBe(true);
    };
    await ack(messageEvent({ channel: 'C0CHAN001', user: OWNER, text: 'talking among ourselves' }));
    await ack(messageEvent({ channel: 'C0CHAN001', user: STRANGER, text: `<@${BOT_USER}> let me in` }));
    await ack(messageEvent({ channel: 'D0DM00002', user: STRANGER, text: 'hi' }));
    await ack(messageEvent({ channel: 'C0OTHER01', user: OWNER, text: `<@${BOT_USER}> wrong channel` }));
    await ack(
      messageEvent({
        channel: 'C0CHAN001',
        user: OWNER,
        text: `<@${BOT_USER}> from a bot`,
        bot_id: 'B0OTHER01',
      }),
    );
    await ack(messageEvent({ channel: 'C0CHAN001', user: BOT_USER, text: 'our own echo' }));
    await ack(
      messageEvent(
        { channel: 'C0CHAN001', user: OWNER, text: `<@${BOT_USER}> forged team` },
        { team: 'T0EVIL001' },
      ),
    );
    expect(rig.got).toHaveLength(0);
    await ack(
      messageEvent({
        channel: 'C0CHAN001',
        user: OWNER,
        text: `<@${BOT_USER}> look at this`,
        ts: '1700000000.000100',
        thread_ts: '1700000000.000001',
      }),
    );
    expect(rig.got.map((m) => m.text)).toEqual(['look at this']);
    expect(rig.got[0]).toMatchObject({ chatId: 'C0CHAN001', isGroup: true });
    await ack(
      messageEvent({
        channel: 'C0CHAN001',
        user: OWNER,
        text: 'and this too',
        thread_ts: '1700000000.000001',
      }),
    );
    await ack(
      messageEvent({
        channel: 'C0CHAN001',
        user: OWNER,
        text: 'another thread',
        thread_ts: '1700000000.000900',
      }),
    );
    expect(rig.got.map((m) => m.text)).toEqual(['look at this', 'and this too']);
  });

  it('with threadSessions a thread is its own chat, and the reply goes into it', async () => {
    const rig = await start({ threadSessions: true });
    const id = fake!.push(
      messageEvent({
        channel: 'C0CHAN001',
        user: OWNER,
        text: `<@${BOT_USER}> start`,
        ts: '1700000001.000100',
      }),
    );
    expect(await waitFor(() => fake!.acks.includes(id))).toBe(true);
    expect(rig.got[0]?.chatId).toBe('C0CHAN001:1700000001.000100');
    const r = await channel!.send('C0CHAN001:1700000001.000100', { type: 'text', text: 'in the thread' });
    expect(r.ok).toBe(true);
    expect(fake!.callsOf('chat.postMessage')[0]?.params).toMatchObject({
      channel: 'C0CHAN001',
      thread_ts: '1700000001.000100',
    });
  });

  it('edits a message it sent (chat.update on its ts), and refuses an id that is not a ts', async () => {
    await start();
    const sent = await channel!.send('D0DM00001', { type: 'text', text: 'running `npm test`' });
    expect(sent.ok).toBe(true);
    const ts = sent.ok ? sent.providerId : undefined;
    expect(ts).toMatch(/^\d+\.\d+$/);
    const r = await channel!.edit!('D0DM00001', ts!, '**3 tools**, 48 s');
    expect(r).toEqual({ ok: true, providerId: ts });
    const updates = fake!.callsOf('chat.update');
    expect(updates).toHaveLength(1);
    expect(updates[0]?.params).toMatchObject({ channel: 'D0DM00001', ts, text: '*3 tools*, 48 s' });
    expect(await channel!.edit!('D0DM00001', 'out:7', 'x')).toMatchObject({ ok: false, code: 'bad_id' });
    fake!.failNext('chat.update', { body: { ok: false, error: 'message_not_found' } });
    expect(await channel!.edit!('D0DM00001', ts!, 'again')).toMatchObject({ ok: false });
    expect(fake!.callsOf('chat.update')).toHaveLength(2);
  });

  it('deletes a message it sent (chat.delete); one already gone counts as deleted', async () => {
    await start();
    const sent = await channel!.send('D0DM00001', { type: 'text', text: 'reading a.ts' });
    const ts = sent.ok ? sent.providerId : undefined;
    expect(await channel!.delete!('D0DM00001', ts!)).toEqual({ ok: true, providerId: ts });
    expect(fake!.callsOf('chat.delete')[0]?.params).toMatchObject({ channel: 'D0DM00001', ts });
    fake!.failNext('chat.delete', { body: { ok: false, error: 'message_not_found' } });
    expect(await channel!.delete!('D0DM00001', ts!)).toMatchObject({ ok: true });
    fake!.failNext('chat.delete', { body: { ok: false, error: 'cant_delete_message' } });
    expect(await channel!.delete!('D0DM00001', ts!)).toMatchObject({
      ok: false,
      code: 'cant_delete_message',
    });
    expect(await channel!.delete!('D0DM00001', 'out:7')).toMatchObject({ ok: false, code: 'bad_id' });
    expect(fake!.callsOf('chat.delete')).toHaveLength(3);
  });

  it('waits out a 429 for its Retry-After, then sends', async () => {
    const rig = await start();
    fake!.failNext('chat.postMessage', {
      status: 429,
      headers: { 'retry-after': '1' },
      body: { ok: false, error: 'ratelimited' },
    });
    const r = await channel!.send('D0DM00001', { type: 'text', text: 'after the limit' });
    expect(r.ok).toBe(true);
    const posts = fake!.callsOf('chat.postMessage');
    expect(posts).toHaveLength(2);
    expect(posts[1]?.params.text).toBe('after the limit');
    expect(rig.slept).toEqual([1000]);
  });

  it('stops sends to a chat Slack refuses (not_in_channel), shows it in status, and starts again when the chat writes', async () => {
    const rig = await start();
    fake!.failNext('chat.postMessage', { body: { ok: false, error: 'not_in_channel' } });
    const r = await channel!.send('C0CHAN001', { type: 'text', text: 'hello?' });
    expect(r).toMatchObject({ ok: false, retryable: false, code: 'stopped' });
    const again = await channel!.send('C0CHAN001', { type: 'text', text: 'again' });
    expect(again).toMatchObject({ ok: false, retryable: false, code: 'stopped' });
    expect(fake!.callsOf('chat.postMessage')).toHaveLength(1);
    expect(await waitFor(() => channel!.status().type === 'connected' && 'probe' in channel!.status())).toBe(
      true,
    );
    expect(JSON.stringify(channel!.status())).toContain('sends stopped to 1 chat');
    const id = fake!.push(
      messageEvent({ channel: 'C0CHAN001', user: OWNER, text: `<@${BOT_USER}> I invited you back` }),
    );
    expect(await waitFor(() => fake!.acks.includes(id))).toBe(true);
    expect(rig.got).toHaveLength(1);
    expect((await channel!.send('C0CHAN001', { type: 'text', text: 'thanks' })).ok).toBe(true);
  });

  it('stops every send once Slack refuses the token, and says so in status', async () => {
    await start();
    fake!.failNext('chat.postMessage', { body: { ok: false, error: 'token_revoked' } });
    expect(await channel!.send('D0DM00001', { type: 'text', text: 'x' })).toMatchObject({
      ok: false,
      retryable: false,
    });
    expect(await channel!.send('D0DM00009', { type: 'text', text: 'y' })).toMatchObject({
      ok: false,
      retryable: false,
    });
    expect(fake!.callsOf('chat.postMessage')).toHaveLength(1);
    expect(channel!.status()).toMatchObject({ type: 'degraded' });
    expect(JSON.stringify(channel!.status())).toContain('token_revoked');
  });

  it('fetches a file with the bot token before the run, and uploads one with files.uploadV2', async () => {
    const rig = await start();
    const bytes = Buffer.from('%PDF-1.4 fake report');
    const url = fake!.addFile('F0FILE001', 'report.pdf', bytes);
    const id = fake!.push(
      messageEvent({
        channel: 'D0DM00001',
        user: OWNER,
        text: 'see attached',
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
      }),
    );
    expect(await waitFor(() => fake!.acks.includes(id))).toBe(true);
    expect(rig.got[0]?.remoteMedia).toEqual([{ url, mimeType: 'application/pdf' }]);
    expect(fake!.downloads).toBe(0);
    const got = await channel!.fetchMedia!('D0DM00001', rig.got[0]!.remoteMedia!);
    expect(got.notes).toEqual([]);
    expect(readFileSync(got.media[0]!.path)).toEqual(bytes);
    expect(got.media[0]).toMatchObject({ kind: 'document', fileName: 'report.pdf', sizeBytes: bytes.length });
    // A URL elsewhere never gets the token.
    const evil = await channel!.fetchMedia!('D0DM00001', [
      { url: 'https://evil.example/x.pdf', mimeType: 'application/pdf' },
    ]);
    expect(evil.media).toEqual([]);
    expect(evil.notes[0]).toContain('not a Slack file address');

    const out = join(dir!, 'chart.png');
    writeFileSync(out, Buffer.from('PNGDATA'));
    const r = await channel!.send('D0DM00001', {
      type: 'file',
      path: out,
      mimeType: 'image/png',
      fileName: 'chart.png',
      sizeBytes: 7,
      caption: 'the **chart**',
    });
    expect(r.ok).toBe(true);
    expect([...fake!.uploads.values()].map((b) => b.toString())).toEqual(['PNGDATA']);
    expect(fake!.callsOf('files.completeUploadExternal')[0]?.params).toMatchObject({
      channel_id: 'D0DM00001',
      initial_comment: 'the *chart*',
    });
  });
});

// The Events API over HTTP (mode "http"): Slack's signature (v0 HMAC, five-minute window) is checked
// before anything is read into the relay; a bad request gets 401 and leaves no trace.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSlackChannel, type SlackChannel } from '../../../src/channels/slack/channel.js';
import { signatureOf, verifySignature } from '../../../src/channels/slack/signature.js';
import { memoryStateStore } from '../../../src/channels/telegram/state.js';
import { configSchema } from '../../../src/config/schema.js';
import type { InboundMessage } from '../../../src/core/types.js';
import { waitFor } from '../../e2e/helpers.js';
import { memoryLog } from '../../queue/helpers.js';
import { BOT_TOKEN, type FakeSlack, messageEvent, SIGNING_SECRET, startFakeSlack } from './fake-slack.js';

const NOW = 1_700_000_000;
const body = Buffer.from('{"type":"event_callback"}');

describe('verifySignature', () => {
  const good = signatureOf(SIGNING_SECRET, String(NOW), body);
  it.each([
    ['a good signature', String(NOW), good, NOW, true],
    ['four minutes old', String(NOW), good, NOW + 240, true],
    ['over five minutes old', String(NOW), good, NOW + 301, false],
    ['from the future', String(NOW), good, NOW - 301, false],
    ['another secret', String(NOW), signatureOf('0'.repeat(32), String(NOW), body), NOW, false],
    ['another timestamp', String(NOW - 1), good, NOW, false],
    ['no timestamp', undefined, good, NOW, false],
    ['no signature', String(NOW), undefined, NOW, false],
    ['a timestamp that is not a number', 'abc', good, NOW, false],
    ['a truncated signature', String(NOW), good.slice(0, -1), NOW, false],
    ['v1 scheme', String(NOW), good.replace('v0=', 'v1='), NOW, false],
  ])('%s', (_n, timestamp, signature, now, ok) => {
    expect(verifySignature(SIGNING_SECRET, { timestamp, signature, body }, now)).toBe(ok);
  });
});

let fake: FakeSlack | undefined;
let channel: SlackChannel | undefined;
let dir: string | undefined;
afterEach(async () => {
  await channel?.stop();
  await fake?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  channel = fake = dir = undefined;
});

describe('Slack channel in mode "http"', () => {
  it('runs a signed event once (a retry is acknowledged again), and refuses an unsigned one with 401 and no trace', async () => {
    fake = await startFakeSlack();
    dir = mkdtempSync(join(tmpdir(), 'aw-slack-http-'));
    const config = configSchema.parse({
      whatsapp: { enabled: false },
      slack: {
        enabled: true,
        mode: 'http',
        http: { port: 0 },
        apiUrl: fake.apiUrl,
        allowFrom: ['U0OWNER01'],
      },
    });
    const { log, lines } = memoryLog();
    const got: InboundMessage[] = [];
    channel = createSlackChannel({
      config,
      paths: { inboundMedia: join(dir, 'in') },
      log,
      state: memoryStateStore(),
      env: { SLACK_BOT_TOKEN: BOT_TOKEN, SLACK_SIGNING_SECRET: SIGNING_SECRET },
    });
    await channel.start(async (m) => {
      got.push(m);
      return { type: 'stored', inboxId: got.length };
    });
    expect(await waitFor(() => channel!.status().type === 'connected', 10_000)).toBe(true);
    const url = `http://127.0.0.1:${channel.eventsPort()}/slack/events`;
    const post = (raw: string, headers: Record<string, string>) =>
      fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: raw });
    const signed = (raw: string, extra: Record<string, string> = {}) => {
      const ts = String(Math.floor(Date.now() / 1000));
      return post(raw, {
        'x-slack-request-timestamp': ts,
        'x-slack-signature': signatureOf(SIGNING_SECRET, ts, raw),
        ...extra,
      });
    };

    const challenge = await signed(JSON.stringify({ type: 'url_verification', challenge: 'abc123' }));
    expect(await challenge.json()).toEqual({ challenge: 'abc123' });

    const raw = JSON.stringify(messageEvent({ channel: 'D0DM00001', user: 'U0OWNER01', text: 'over http' }));
    expect((await signed(raw)).status).toBe(200);
    expect(
      (await signed(raw, { 'x-slack-retry-num': '1', 'x-slack-retry-reason': 'http_timeout' })).status,
    ).toBe(200);
    expect(got.map((m) => m.text)).toEqual(['over http']);

    const forged = JSON.stringify(
      messageEvent({ channel: 'D0DM00001', user: 'U0OWNER01', text: 'forged secret words' }),
    );
    const ts = String(Math.floor(Date.now() / 1000));
    expect(
      (await post(forged, { 'x-slack-request-timestamp': ts, 'x-slack-signature': 'v0=deadbeef' })).status,
    ).toBe(401);
    expect((await post(forged, {})).status).toBe(401);
    const old = String(Math.floor(Date.now() / 1000) - 600);
    expect(
      (
        await post(forged, {
          'x-slack-request-timestamp': old,
          'x-slack-signature': signatureOf(SIGNING_SECRET, old, forged),
        })
      ).status,
    ).toBe(401);
    expect(got).toHaveLength(1);
    const logged = JSON.stringify(lines);
    expect(logged).not.toContain('forged secret words');
    expect(logged).not.toContain(SIGNING_SECRET);
  });
});

import { readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SECRET_HEADER } from '../../../src/channels/telegram/webhook.js';
import { inboundDirOf } from '../../../src/media/inbound.js';
import { dm, type FakeBotApi, startFakeBotApi } from './fake-bot-api.js';
import { type Harness, harness, telegramConfig, until } from './harness.js';

describe('Telegram channel: inbound media and the webhook (fake Bot API)', () => {
  let api: FakeBotApi;
  let h: Harness;
  const stops: (() => Promise<void>)[] = [];
  beforeEach(async () => {
    api = await startFakeBotApi();
    h = harness();
  });
  afterEach(async () => {
    for (const s of stops.splice(0)) await s();
    await api.close();
    h.cleanup();
  });
  const start = async (
    section: Record<string, unknown> = {},
    over: Parameters<Harness['make']>[1] = {},
    extra: Record<string, unknown> = {},
  ) => {
    const ch = h.make(telegramConfig(api.url, section, extra), over);
    stops.push(() => ch.stop());
    await ch.start(h.handler);
    await until(() => ch.status().type === 'connected');
    return ch;
  };

  it('downloads the largest photo size under the cap, with its caption as the text', async () => {
    await start({}, {}, { media: { maxInboundMb: 1 } });
    api.addFile('small', Buffer.from('small-jpeg'), 'photos/small.jpg');
    api.addFile('mid', Buffer.from('mid-jpeg-bytes'), 'photos/mid.jpg');
    api.push(
      dm(42, '', 1, {
        text: undefined,
        caption: 'look',
        photo: [
          { file_id: 'small', file_unique_id: 's', width: 90, height: 90, file_size: 10 },
          { file_id: 'huge', file_unique_id: 'h', width: 4000, height: 4000, file_size: 5 * 1024 * 1024 },
          { file_id: 'mid', file_unique_id: 'm', width: 800, height: 800, file_size: 14 },
        ],
      }),
    );
    await until(() => h.received.length === 1);
    const m = h.received[0]!;
    expect(m.text).toBe('look');
    expect(m.media).toHaveLength(1);
    expect(m.media[0]).toMatchObject({ kind: 'image', mimeType: 'image/jpeg', sizeBytes: 14 });
    expect(readFileSync(m.media[0]!.path, 'utf8')).toBe('mid-jpeg-bytes');
    // In the chat's own private folder under the received-files root.
    expect(dirname(m.media[0]!.path)).toBe(inboundDirOf(join(h.dir, 'inbound'), 'telegram', m.chatId));
    expect(statSync(dirname(m.media[0]!.path)).mode & 0o777).toBe(0o700);
    expect(api.downloads).toEqual(['photos/mid.jpg']);
  });

  it('refuses a document over the cap before any download, and tells the sender', async () => {
    await start({}, {}, { media: { maxInboundMb: 1 } });
    api.push(
      dm(42, '', 1, {
        text: undefined,
        document: {
          file_id: 'big',
          file_unique_id: 'b',
          file_size: 3 * 1024 * 1024,
          file_name: 'big.zip',
          mime_type: 'application/zip',
        },
      }),
    );
    await until(() => api.callsOf('sendMessage').length === 1);
    expect(api.callsOf('getFile')).toHaveLength(0);
    expect(api.downloads).toHaveLength(0);
    expect(String(api.callsOf('sendMessage')[0]!.params.text)).toMatch(/document is over the 1 MB limit/);
    expect(h.received).toHaveLength(0);
  });

  it('caps by bytes read when the declared size lies, and the 20 MB Bot API limit applies whatever the config', async () => {
    await start({}, {}, { media: { maxInboundMb: 1 } });
    api.addFile('liar', Buffer.alloc(1024 * 1024 + 10), 'documents/liar.bin');
    api.push(dm(42, 'see file', 1, { document: { file_id: 'liar', file_unique_id: 'l', file_size: 100 } }));
    await until(() => h.received.length === 1);
    expect(h.received[0]!.media).toHaveLength(0);
    expect(h.received[0]!.text).toMatch(/could not be downloaded/);
  });

  it('voice: downloaded and handed to the transcription hook; the transcript is the text', async () => {
    const heard: string[] = [];
    await start(
      {},
      {
        transcribe: async (path) => {
          heard.push(readFileSync(path, 'utf8'));
          return 'please run the tests';
        },
      },
    );
    api.addFile('v1', Buffer.from('OggS-voice'), 'voice/file_1.oga');
    api.push(
      dm(42, '', 1, {
        text: undefined,
        voice: { file_id: 'v1', file_unique_id: 'v', duration: 2, mime_type: 'audio/ogg', file_size: 10 },
      }),
    );
    await until(() => h.received.length === 1);
    expect(heard).toEqual(['OggS-voice']);
    expect(h.received[0]).toMatchObject({
      text: 'please run the tests',
      media: [{ kind: 'voice', mimeType: 'audio/ogg' }],
    });
  });

  it('webhook: 403 without or with a wrong secret (nothing stored, no body logged), 200 with it', async () => {
    const ch = await start({
      webhook: {
        url: 'https://bot.example.com/tg',
        host: '127.0.0.1',
        port: 0,
        secretToken: 'the-right-secret-123',
      },
    });
    const set = api.callsOf('setWebhook')[0]!.params;
    expect(set).toMatchObject({ url: 'https://bot.example.com/tg', secret_token: 'the-right-secret-123' });
    expect(api.callsOf('getUpdates')).toHaveLength(0);
    const post = (headers: Record<string, string>, body: unknown) =>
      fetch(`http://127.0.0.1:${ch.webhookPort()}/telegram/webhook`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
    const evil = { update_id: 1, ...dm(42, 'SECRET-PAYLOAD rm -rf', 1) };
    expect((await post({}, evil)).status).toBe(403);
    expect((await post({ [SECRET_HEADER]: 'the-wrong-secret-12' }, evil)).status).toBe(403);
    expect((await post({ [SECRET_HEADER]: 'the-right-secret-12' }, evil)).status).toBe(403);
    expect(h.received).toHaveLength(0);
    expect(h.logs.join('')).not.toContain('SECRET-PAYLOAD');
    const good = await post(
      { [SECRET_HEADER]: 'the-right-secret-123' },
      { update_id: 2, ...dm(42, 'hello by webhook', 2) },
    );
    expect(good.status).toBe(200);
    expect(h.received.map((m) => m.text)).toEqual(['hello by webhook']);
    // Not JSON, or not an update: 400; another path: 404. Nothing reaches the inbox.
    const bad = await fetch(`http://127.0.0.1:${ch.webhookPort()}/telegram/webhook`, {
      method: 'POST',
      headers: { [SECRET_HEADER]: 'the-right-secret-123' },
      body: '{not json',
    });
    expect(bad.status).toBe(400);
    expect((await post({ [SECRET_HEADER]: 'the-right-secret-123' }, { hello: 1 })).status).toBe(400);
    const elsewhere = await fetch(`http://127.0.0.1:${ch.webhookPort()}/other`, {
      method: 'POST',
      body: '{}',
    });
    expect(elsewhere.status).toBe(404);
    expect(h.received).toHaveLength(1);
    // Telegram delivering the same update again: handled once.
    await post(
      { [SECRET_HEADER]: 'the-right-secret-123' },
      { update_id: 2, ...dm(42, 'hello by webhook', 2) },
    );
    expect(h.received).toHaveLength(1);
  });
});

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import type { InboundMessage } from '../../../src/core/types.js';
import { inboundDirOf } from '../../../src/media/inbound.js';
import { type FakeTwilio, sid, startFakeTwilio } from './helpers/fake-twilio.js';
import {
  createInbox,
  type Harness,
  smsParams,
  startChannel,
  twilioConfig,
  twilioPost,
} from './helpers/harness.js';

const PATH = '/twilio/inbound';
let fake: FakeTwilio;
let h: Harness | undefined;
const cleanup: (() => Promise<void>)[] = [];

afterEach(async () => {
  await h?.stop();
  h = undefined;
  await fake?.close();
  for (const c of cleanup.splice(0)) await c();
});

async function start(section: Record<string, unknown> = {}, maxInboundMb = 1) {
  fake = await startFakeTwilio();
  const seen: InboundMessage[] = [];
  h = await startChannel(
    twilioConfig({ apiBaseUrl: fake.url, ...section }, { media: { maxInboundMb } }),
    (db) => {
      const inbox = createInbox(db);
      return async (msg) => {
        const outcome = await inbox.handler(msg);
        if (outcome.type === 'stored') seen.push(msg);
        return outcome;
      };
    },
  );
  return { h, seen };
}

function withMedia(messageSid: string, mediaSid: string, contentType = 'image/jpeg', over = {}) {
  return smsParams({
    MessageSid: messageSid,
    Body: '',
    NumMedia: '1',
    MediaUrl0: fake.mediaUrl(messageSid, mediaSid),
    MediaContentType0: contentType,
    ...over,
  });
}

/** Every file under the received-files root (each chat has a folder of its own there). */
const inboundFiles = (dir: string) =>
  existsSync(dir) ? readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()) : [];

/** What the queue does before the message's run: the channel downloads what it was stored with. */
async function fetched(msg: InboundMessage | undefined) {
  expect(msg?.media).toEqual([]);
  const got = await h!.channel.fetchMedia!(msg!.chatId, msg!.remoteMedia ?? []);
  return { media: got.media, text: [msg!.text, ...got.notes].filter(Boolean).join('\n\n') };
}

describe('twilio inbound media', () => {
  it('downloads with the account Basic auth into the inbound folder, mode 0600', async () => {
    const { h, seen } = await start();
    const msid = sid('MM');
    fake.media.set('ME1', { type: 'bytes', data: Buffer.from('PNGDATA'), contentType: 'image/png' });
    const res = await twilioPost(`${h.base}${PATH}`, withMedia(msid, 'ME1', 'image/png'));
    expect(res.status).toBe(200);
    const m = (await fetched(seen[0])).media[0];
    expect(fake.mediaRequests).toEqual([{ path: expect.stringContaining('/Media/ME1'), authorized: true }]);
    expect(m).toMatchObject({ kind: 'image', mimeType: 'image/png', sizeBytes: 7 });
    // In the chat's own folder under the received-files root, private.
    expect(dirname(m!.path)).toBe(inboundDirOf(h.paths.inboundMedia, 'twilio', '+15551234567'));
    expect(statSync(dirname(m!.path)).mode & 0o777).toBe(0o700);
    expect(readFileSync(m!.path, 'utf8')).toBe('PNGDATA');
    expect(statSync(m!.path).mode & 0o777).toBe(0o600);
  });

  it('cuts off a body that streams forever at the cap, keeps no file, and tells the user', async () => {
    const { h, seen } = await start({}, 1);
    fake.media.set('ME2', { type: 'forever' });
    const res = await twilioPost(`${h.base}${PATH}`, withMedia(sid('MM'), 'ME2'));
    expect(res.status).toBe(200);
    expect(seen).toHaveLength(1);
    const got = await fetched(seen[0]);
    await fake.mediaClosed;
    expect(got.media).toEqual([]);
    expect(got.text).toBe('[attachment 1 (image/jpeg) was not received: larger than 1 MB]');
    expect(inboundFiles(h.paths.inboundMedia)).toEqual([]);
    await expect
      .poll(() => fake.created.map((m) => m.body))
      .toEqual(['Your attachment was too large (limit 1 MB) and was not received.']);
  });

  it('refuses a declared size over the cap without reading it all', async () => {
    const { h, seen } = await start({}, 1);
    fake.media.set('ME3', { type: 'declared-huge' });
    await twilioPost(`${h.base}${PATH}`, withMedia(sid('MM'), 'ME3', 'video/mp4', { Body: 'look' }));
    expect((await fetched(seen[0])).text).toBe(
      'look\n\n[attachment 1 (video/mp4) was not received: larger than 1 MB]',
    );
    expect(inboundFiles(h.paths.inboundMedia)).toEqual([]);
  });

  it('stores the message with a note when the download outlives its deadline', async () => {
    const { h, seen } = await start({ mediaTimeoutSeconds: 1 });
    fake.media.set('ME4', { type: 'stall' });
    const res = await twilioPost(
      `${h.base}${PATH}`,
      withMedia(sid('MM'), 'ME4', 'image/png', { Body: 'hi' }),
    );
    expect(res.status).toBe(200);
    expect((await fetched(seen[0])).text).toBe(
      'hi\n\n[attachment 1 (image/png) was not received: the download took too long]',
    );
    expect(inboundFiles(h.paths.inboundMedia)).toEqual([]);
  });

  it('never sends the credentials to a media URL outside Twilio and the API origin', async () => {
    const { h, seen } = await start();
    const hits: (string | undefined)[] = [];
    const other = express().get('/x', (req, res) => {
      hits.push(req.get('authorization'));
      res.send('x');
    });
    const server: Server = await new Promise((r) => {
      const s = other.listen(0, '127.0.0.1', () => r(s));
    });
    cleanup.push(() => new Promise((r) => server.close(() => r())));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/x`;
    await twilioPost(
      `${h.base}${PATH}`,
      smsParams({ NumMedia: '1', MediaUrl0: url, MediaContentType0: 'image/png' }),
    );
    expect((await fetched(seen[0])).text).toContain('[attachment 1 (image/png) could not be downloaded]');
    expect(hits).toEqual([]);
  });

  it('does not download a stranger’s media', async () => {
    const { h, seen } = await start();
    fake.media.set('ME5', { type: 'bytes', data: Buffer.from('x'), contentType: 'image/png' });
    await twilioPost(`${h.base}${PATH}`, withMedia(sid('MM'), 'ME5', 'image/png', { From: '+15559876543' }));
    expect(fake.mediaRequests).toEqual([]);
    expect(seen).toEqual([]);
  });

  it("keeps the attachment of a `/new` command: it is the new session's first message", async () => {
    fake = await startFakeTwilio();
    const commands: InboundMessage[] = [];
    // The core answers `/new <text>` with `command` and stores the message, files included, to run.
    h = await startChannel(twilioConfig({ apiBaseUrl: fake.url }), () => async (msg) => {
      commands.push(msg);
      return { type: 'command' };
    });
    fake.media.set('ME7', { type: 'bytes', data: Buffer.from('png!'), contentType: 'image/png' });
    const res = await twilioPost(
      `${h.base}${PATH}`,
      withMedia(sid('MM'), 'ME7', 'image/png', { Body: '/new what is in this picture?' }),
    );
    expect(res.status).toBe(200);
    expect(commands[0]?.remoteMedia).toEqual([
      { url: fake.mediaUrl(commands[0]!.messageId, 'ME7'), mimeType: 'image/png' },
    ]);
    const path = (await h.channel.fetchMedia!(commands[0]!.chatId, commands[0]!.remoteMedia!)).media[0]!.path;
    expect(readFileSync(path, 'utf8')).toBe('png!');
  });

  it('acknowledges without downloading: a duplicate delivery downloads nothing at all', async () => {
    const { h, seen } = await start();
    fake.media.set('ME6', { type: 'bytes', data: Buffer.from('data'), contentType: 'image/png' });
    const params = withMedia(sid('MM'), 'ME6', 'image/png');
    expect((await twilioPost(`${h.base}${PATH}`, params)).status).toBe(200);
    expect((await twilioPost(`${h.base}${PATH}`, params)).status).toBe(200);
    expect(seen).toHaveLength(1);
    expect(fake.mediaRequests).toEqual([]);
    expect(inboundFiles(h.paths.inboundMedia)).toEqual([]);
  });
});

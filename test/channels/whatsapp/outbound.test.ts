// Outbound through the channel: real files on disk, a fake socket recording what Baileys would send.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WAMessageKey } from '@whiskeysockets/baileys';
import { describe, expect, it } from 'vitest';
import { sendKindFor } from '../../../src/channels/whatsapp/outbound-content.js';
import type { OutboundItem } from '../../../src/core/types.js';
import { boom } from './fake-socket.js';
import { setup } from './harness.js';

const ALICE = '+15557654321';
const ALICE_JID = '15557654321@s.whatsapp.net';

/** The first bytes of an Ogg stream whose first packet is `codecHeader` (OpusHead, \x01vorbis). */
function oggHead(codecHeader: string): Buffer {
  const page = Buffer.alloc(28);
  page.write('OggS', 0, 'latin1');
  page[5] = 2; // beginning of stream
  page[26] = 1; // one segment
  page[27] = 19; // of 19 bytes
  return Buffer.concat([page, Buffer.from(codecHeader.padEnd(19, '\0'), 'latin1')]);
}

function file(
  dir: string,
  name: string,
  bytes: number,
  mimeType: string,
  caption?: string,
  head?: Buffer,
): OutboundItem {
  const folder = join(dir, 'out');
  mkdirSync(folder, { recursive: true });
  const path = join(folder, name);
  const data = Buffer.alloc(bytes, 7);
  head?.copy(data);
  writeFileSync(path, data);
  return { type: 'file', path, mimeType, fileName: name, sizeBytes: bytes, ...(caption ? { caption } : {}) };
}

describe('WhatsApp outbound text', () => {
  it('formats Markdown for WhatsApp and never asks Baileys for a link preview', async () => {
    const h = await setup();
    const s = await h.start();
    const r = await h.channel.send(ALICE, { type: 'text', text: '**Done.** See https://example.com' });
    expect(r).toMatchObject({ ok: true, providerId: s.sent[0]!.options!.messageId });
    expect(s.sent).toEqual([
      {
        jid: ALICE_JID,
        content: { text: '*Done.* See https://example.com', linkPreview: null },
        options: expect.anything(),
      },
    ]);
  });

  it('sends a code item exactly, in one monospace block, never converted from Markdown', async () => {
    const h = await setup();
    const s = await h.start();
    const text = 'claude wants to run: echo "[ok](https://x.example/$(curl|sh))" **b** ~~s~~';
    await h.channel.send(ALICE, { type: 'text', text, code: true });
    expect(s.sent.map((m) => (m.content as { text: string }).text)).toEqual([`\`\`\`${text}\`\`\``]);
  });

  it('splits text longer than whatsapp.chunkChars, in order', async () => {
    const h = await setup({ config: { whatsapp: { chunkChars: 100 } } });
    const s = await h.start();
    expect(h.channel.textLimit).toBe(100);
    const para = (c: string) => c.repeat(80);
    const r = await h.channel.send(ALICE, {
      type: 'text',
      text: `${para('a')}\n\n${para('b')}\n\n${para('c')}`,
    });
    expect(r.ok).toBe(true);
    expect(s.sent.map((x) => (x.content as { text: string }).text)).toEqual([
      para('a'),
      para('b'),
      para('c'),
    ]);
  });

  it('sends a URL item as a link; nothing is fetched', async () => {
    const h = await setup();
    const s = await h.start();
    await h.channel.send(ALICE, { type: 'url', url: 'https://example.com/chart.png', caption: 'Chart' });
    expect(s.sent[0]!.content).toEqual({ text: 'Chart\nhttps://example.com/chart.png', linkPreview: null });
  });

  it('refuses a chat id that is not WhatsApp-addressable, without retrying', async () => {
    const h = await setup();
    await h.start();
    expect(await h.channel.send('not-a-chat', { type: 'text', text: 'x' })).toMatchObject({
      ok: false,
      retryable: false,
    });
  });
});

describe('WhatsApp outbound media', () => {
  it('sends each kind as the right WhatsApp message, from bytes it read itself', async () => {
    const h = await setup();
    const s = await h.start();
    const items = [
      file(h.dir, 'photo.jpg', 1000, 'image/jpeg', 'the **photo**'),
      file(h.dir, 'clip.mp4', 1000, 'video/mp4'),
      file(h.dir, 'note.ogg', 1000, 'audio/ogg', 'listen', oggHead('OpusHead')),
      file(h.dir, 'song.mp3', 1000, 'audio/mpeg'),
      file(h.dir, 'report.pdf', 1000, 'application/pdf', 'Q3'),
    ];
    for (const it of items) expect((await h.channel.send(ALICE, it)).ok).toBe(true);
    const c = s.sent.map((x) => x.content as Record<string, unknown>);
    expect(c[0]).toMatchObject({
      image: expect.any(Buffer),
      mimetype: 'image/jpeg',
      caption: 'the *photo*',
    });
    expect(c[1]).toMatchObject({ video: expect.any(Buffer), mimetype: 'video/mp4' });
    expect(c[2]).toMatchObject({ audio: expect.any(Buffer), ptt: true, mimetype: 'audio/ogg; codecs=opus' });
    expect(c[3]).toEqual({ text: 'listen', linkPreview: null }); // voice notes take no caption
    expect(c[4]).toMatchObject({ audio: expect.any(Buffer), mimetype: 'audio/mpeg' });
    expect(c[4]!.ptt).toBeUndefined();
    expect(c[5]).toMatchObject({ document: expect.any(Buffer), fileName: 'report.pdf', caption: 'Q3' });
    expect((c[0]!.image as Buffer).equals(Buffer.alloc(1000, 7))).toBe(true);
    // Never a `{ url }` for Baileys to read or fetch.
    expect(JSON.stringify(c)).not.toContain('"url"');
  });

  it('replaces a file over media.maxOutboundMb by a notice', async () => {
    const h = await setup({ config: { media: { maxOutboundMb: 1 } } });
    const s = await h.start();
    const r = await h.channel.send(ALICE, file(h.dir, 'big.pdf', 2 * 1048576, 'application/pdf'));
    expect(r.ok).toBe(true);
    expect(s.sent).toHaveLength(1);
    expect(s.sent[0]!.content).toEqual({
      text: '(Attachment "big.pdf" not sent: it is 2 MB, over the 1 MB limit.)',
      linkPreview: null,
    });
  });

  it('does not follow a symlink swapped in after approval', async () => {
    const h = await setup();
    const s = await h.start();
    const secret = join(h.dir, 'secret.txt');
    writeFileSync(secret, 'token=hunter2');
    mkdirSync(join(h.dir, 'out'), { recursive: true });
    const link = join(h.dir, 'out', 'innocent.txt');
    symlinkSync(secret, link);
    await h.channel.send(ALICE, {
      type: 'file',
      path: link,
      mimeType: 'text/plain',
      fileName: 'innocent.txt',
      sizeBytes: 5,
    });
    expect(s.sent).toHaveLength(1);
    expect(s.sent[0]!.content).toEqual({
      text: '(Attachment "innocent.txt" could not be sent.)',
      linkPreview: null,
    });
  });

  it('turns a rejected upload into a notice, never silence', async () => {
    const h = await setup();
    const s = await h.start();
    let first = true;
    const real = s.sendMessage;
    s.sendMessage = async (jid, content, options) => {
      if (first) {
        first = false;
        throw boom(413, 'upload rejected');
      }
      return real(jid, content, options);
    };
    const r = await h.channel.send(ALICE, file(h.dir, 'pic.png', 100, 'image/png'));
    expect(r.ok).toBe(true);
    expect(s.sent.map((x) => x.content)).toEqual([
      { text: '(Attachment "pic.png" could not be sent.)', linkPreview: null },
    ]);
  });

  it('sends big images and videos as documents', () => {
    expect(sendKindFor('image/jpeg', 1000)).toBe('image');
    expect(sendKindFor('image/jpeg', 17 * 1048576)).toBe('document');
    expect(sendKindFor('video/mp4', 17 * 1048576)).toBe('document');
    expect(sendKindFor('image/gif', 10)).toBe('document');
    expect(sendKindFor('audio/opus', 47, oggHead('OpusHead'))).toBe('voice');
  });

  it('sends Ogg as a voice note only when it is Opus (Vorbis or unknown goes as a document)', async () => {
    expect(sendKindFor('audio/ogg', 47, oggHead('\u0001vorbis'))).toBe('document');
    expect(sendKindFor('audio/ogg', 10, Buffer.from('not an ogg'))).toBe('document');
    expect(sendKindFor('audio/ogg', 10)).toBe('document');
    const h = await setup();
    const s = await h.start();
    const vorbis = file(h.dir, 'song.ogg', 500, 'audio/ogg', undefined, oggHead('\u0001vorbis'));
    expect((await h.channel.send(ALICE, vorbis)).ok).toBe(true);
    expect(s.sent[0]!.content).toMatchObject({ document: expect.any(Buffer), fileName: 'song.ogg' });
    expect((s.sent[0]!.content as { ptt?: boolean }).ptt).toBeUndefined();
  });
});

describe('WhatsApp outbound while disconnected', () => {
  it('a send that hits a closed connection inside Baileys is retryable', async () => {
    const h = await setup();
    const s = await h.start();
    s.failSend = boom(428, 'Connection Closed');
    expect(await h.channel.send(ALICE, { type: 'text', text: 'x' })).toMatchObject({
      ok: false,
      retryable: true,
      code: '428',
    });
    s.failSend = boom(400, 'bad-request');
    expect(await h.channel.send(ALICE, { type: 'text', text: 'x' })).toMatchObject({
      ok: false,
      retryable: false,
    });
  });

  it('fails retryable while closed, and delivers exactly once after reconnect', async () => {
    const h = await setup();
    const first = await h.start();
    // The agent finished, then the connection dropped before the reply went out.
    first.close(428);
    const item: OutboundItem = { type: 'text', text: 'the reply' };
    const r1 = await h.channel.send(ALICE, item);
    expect(r1).toEqual({
      ok: false,
      error: 'WhatsApp is not connected',
      retryable: true,
      code: 'not_connected',
    });
    h.scheduler.fire(); // backoff elapsed: the one new socket
    const second = h.sock();
    expect(second).not.toBe(first);
    expect(await h.channel.send(ALICE, item)).toMatchObject({ ok: false, retryable: true }); // still connecting
    second.open();
    // (the outbox's retry after reconnect)
    const r2 = await h.channel.send(ALICE, item);
    expect(r2).toMatchObject({ ok: true });
    const all = h.sockets.flatMap((s) => s.sent);
    expect(all).toHaveLength(1);
  });
});

describe('WhatsApp retry receipts (getMessage)', () => {
  it('serves what we sent while young, undefined when unknown or old', async () => {
    let now = 1_800_000_000_000;
    const h = await setup({ deps: { now: () => now } });
    const s = await h.start();
    await h.channel.send(ALICE, { type: 'text', text: 'resend me' });
    const id = s.sent[0]!.options!.messageId!;
    const key: WAMessageKey = { remoteJid: ALICE_JID, fromMe: true, id };
    expect((await s.config.getMessage?.(key))?.conversation).toBe('resend me');
    expect(await s.config.getMessage?.({ ...key, id: 'UNKNOWN' })).toBeUndefined();
    now += 16 * 60_000;
    expect(await s.config.getMessage?.(key)).toBeUndefined(); // no resend of stale content
  });
});

describe('WhatsApp typing', () => {
  it('composing while on, refreshed on the interval, paused when off', async () => {
    const h = await setup({ config: { whatsapp: { typingIntervalSeconds: 5 } } });
    const s = await h.start();
    await h.channel.typing!(ALICE, true);
    expect(h.scheduler.delays()).toEqual([5000]);
    h.scheduler.fire();
    h.scheduler.fire();
    await h.channel.typing!(ALICE, false);
    expect(s.presence).toEqual([
      { type: 'composing', jid: ALICE_JID },
      { type: 'composing', jid: ALICE_JID },
      { type: 'composing', jid: ALICE_JID },
      { type: 'paused', jid: ALICE_JID },
    ]);
    expect(h.scheduler.pending.size).toBe(0);
  });

  it('presence failures are not fatal, and stop clears every indicator', async () => {
    const h = await setup();
    const s = await h.start();
    s.sendPresenceUpdate = async () => {
      throw new Error('closed');
    };
    await expect(h.channel.typing!(ALICE, true)).resolves.toBeUndefined();
    await h.channel.stop();
    expect(h.scheduler.pending.size).toBe(0);
  });
});

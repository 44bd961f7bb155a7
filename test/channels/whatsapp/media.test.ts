// Inbound media end to end: media encrypted with Baileys' own encryptedStream, served by a real HTTP
// server on 127.0.0.1 standing in for WhatsApp's CDN, downloaded, decrypted and capped by the channel.
// The URLs stay on https://mmg.whatsapp.net; only DNS and the connection are faked (cdn.ts).
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { encryptedStream, type MediaType, type proto, type WAMessage } from '@whiskeysockets/baileys';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloadMedia } from '../../../src/channels/whatsapp/media-download.js';
import { inboundDirOf } from '../../../src/media/inbound.js';
import { startLauncher } from '../../../src/runner/launcher/client.js';
import { tempDir } from '../../helpers/tmp.js';
import { CDN, CDN_ADDRESS, cdnEdge } from './cdn.js';
import { setup } from './harness.js';
import { waMessage } from './messages.js';

const ALICE = '15557654321@s.whatsapp.net';
const config = (media: Record<string, unknown> = {}) => ({
  whatsapp: { allowFrom: ['+15557654321'] },
  media,
});
let port = 0;
const edge = cdnEdge(() => port);
const local = { mediaNet: edge };

type Route = { status: number; body?: Buffer; declareLength?: boolean; location?: string; stall?: boolean };
const routes = new Map<string, Route>();
const hits: string[] = [];
let server: Server;
const base = CDN;

beforeAll(async () => {
  server = createServer((req, res) => {
    hits.push(req.url ?? '');
    const r = routes.get(req.url ?? '') ?? { status: 404 };
    if (r.stall) return void res.writeHead(200).write(Buffer.alloc(100, 7)); // then nothing, forever
    if (!r.body) return void res.writeHead(r.status, r.location ? { location: r.location } : {}).end();
    res.writeHead(r.status, r.declareLength ? { 'content-length': r.body.length } : {});
    // Streamed in pieces without a length, the way a lying sender's file would arrive.
    let off = 0;
    const pump = () => {
      while (off < r.body!.length) {
        const piece = r.body!.subarray(off, off + 65536);
        off += piece.length;
        if (!res.write(piece)) return void res.once('drain', pump);
      }
      res.end();
    };
    res.on('error', () => {});
    pump();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

/** Encrypts `plain` as WhatsApp would and serves it at `path`; returns the media key. */
async function serve(path: string, plain: Buffer, type: MediaType, declareLength = false): Promise<Buffer> {
  const enc = await encryptedStream(plain, type);
  routes.set(path, { status: 200, body: readFileSync(enc.encFilePath), declareLength });
  rmSync(enc.encFilePath, { force: true });
  return enc.mediaKey;
}

const image = (path: string, mediaKey: Uint8Array, extra: proto.Message.IImageMessage = {}): WAMessage =>
  waMessage(
    { chat: ALICE },
    { imageMessage: { url: `${base}${path}`, mediaKey, mimetype: 'image/jpeg', ...extra } },
  );

/** The names of every file under the received-files root (each chat has a folder of its own). */
const mediaFiles = (dir: string) =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => e.name);

describe('WhatsApp inbound media', () => {
  it('downloads, decrypts and saves under a generated private name, then hands over the path', async () => {
    const plain = Buffer.from('JPEG'.repeat(5000));
    const key = await serve('/img1', plain, 'image');
    const h = await setup({ config: config(), deps: local });
    const s = await h.start();
    s.upsert([image('/img1', key, { caption: 'what is this?', fileLength: plain.length })]);
    await h.channel.idle();
    expect(h.handled).toHaveLength(1);
    const [m] = h.handled[0]!.media;
    expect(h.handled[0]!.text).toBe('what is this?');
    expect(m).toMatchObject({ kind: 'image', mimeType: 'image/jpeg', sizeBytes: plain.length });
    // In the chat's own private folder under the received-files root.
    expect(dirname(m!.path)).toBe(inboundDirOf(join(h.dir, 'media'), 'whatsapp', h.handled[0]!.chatId));
    expect(statSync(dirname(m!.path)).mode & 0o777).toBe(0o700);
    expect(m!.path).toMatch(/\/\d+-[0-9a-f]{16}\.jpg$/);
    expect(readFileSync(m!.path).equals(plain)).toBe(true);
    expect(statSync(m!.path).mode & 0o777).toBe(0o600);
  });

  it('a redelivered, unsaved or dropped message leaves no copy of its file', async () => {
    const key = await serve('/img-dup', Buffer.from('JPEG'.repeat(100)), 'image');
    const outcomes = ['stored', 'duplicate', 'failed', 'rejected'] as const;
    let n = 0;
    const h = await setup({
      config: config(),
      deps: { ...local, handlerRetryDelaysMs: [] },
      outcome: () => {
        const type = outcomes[n++]!;
        if (type === 'stored') return { type, inboxId: 1 };
        if (type === 'failed') return { type, error: 'x' };
        return type === 'rejected' ? { type, reason: 'queue full' } : { type };
      },
    });
    const s = await h.start();
    const msg = image('/img-dup', key, { caption: 'this one' });
    s.upsert([msg]);
    await h.channel.idle();
    s.upsert([msg], 'append'); // the same message replayed after a reconnect
    await h.channel.idle();
    s.upsert([image('/img-dup', key, { caption: 'and this' })]);
    await h.channel.idle();
    s.upsert([image('/img-dup', key, { caption: 'queue full' })]);
    await h.channel.idle();
    expect(h.handled).toHaveLength(4);
    const kept = h.handled[0]!.media[0]!.path;
    expect(mediaFiles(join(h.dir, 'media'))).toEqual([kept.split('/').pop()]);
  });

  it('keeps the file of a `/new` command with an attachment (the new session runs with it), and reads it', async () => {
    const key = await serve('/img-new', Buffer.from('JPEG'.repeat(10)), 'image');
    const h = await setup({ config: config(), deps: local, outcome: () => ({ type: 'command' }) });
    const s = await h.start();
    const msg = image('/img-new', key, { caption: '/new what is this?' });
    s.upsert([msg]);
    await h.channel.idle();
    expect(readFileSync(h.handled[0]!.media[0]!.path).toString()).toBe('JPEG'.repeat(10));
    expect(s.reads).toEqual([[msg.key]]); // handled durably: it gets its read receipt
  });

  it('a document named ../../.bashrc lands in the media folder; the name is display only', async () => {
    const key = await serve('/doc1', Buffer.from('%PDF-1.4 hello'), 'document');
    const h = await setup({ config: config(), deps: local });
    const s = await h.start();
    s.upsert([
      waMessage(
        { chat: ALICE },
        {
          documentMessage: {
            url: `${base}/doc1`,
            mediaKey: key,
            mimetype: 'application/pdf',
            fileName: '../../.bashrc',
          },
        },
      ),
    ]);
    await h.channel.idle();
    const [m] = h.handled[0]!.media;
    expect(m).toMatchObject({ kind: 'document', fileName: '../../.bashrc' });
    expect(m!.path.startsWith(join(h.dir, 'media'))).toBe(true);
    expect(m!.path.endsWith('.pdf')).toBe(true);
  });

  it('aborts at media.maxInboundMb by bytes read when the declared size lies, and tells the user', async () => {
    const plain = Buffer.alloc(3 * 1048576, 1);
    const key = await serve('/big', plain, 'image');
    const h = await setup({ config: config({ maxInboundMb: 1 }), deps: local });
    const s = await h.start();
    s.upsert([image('/big', key, { fileLength: 1024 })]);
    await h.channel.idle();
    expect(h.handled).toEqual([]); // nothing but the attachment: nothing to run
    expect(s.sent.map((x) => x.content)).toEqual([
      { text: 'Your photo is over the 1 MB limit, so it was not passed on.', linkPreview: null },
    ]);
    expect(mediaFiles(join(h.dir, 'media'))).toEqual([]);
    expect(s.reads).toEqual([]);
  });

  it('still runs the caption of an oversized attachment, noting what is missing', async () => {
    const key = await serve('/big2', Buffer.alloc(2 * 1048576, 2), 'image', true);
    const h = await setup({ config: config({ maxInboundMb: 1 }), deps: local });
    const s = await h.start();
    s.upsert([image('/big2', key, { caption: 'see attached', fileLength: 10 })]);
    await h.channel.idle();
    expect(h.handled[0]).toMatchObject({ media: [] });
    expect(h.handled[0]!.text).toMatch(
      /^see attached\n\[The image attached to this message could not be downloaded\.\]$/,
    );
    expect(s.sent).toHaveLength(1);
  });

  it.each([
    ['this machine', () => `http://127.0.0.1:${port}/ssrf`],
    ['another https host', () => 'https://evil.example/ssrf'],
    ['plain http on the CDN name', () => 'http://mmg.whatsapp.net/ssrf'],
    ['a look-alike name', () => 'https://mmg.whatsapp.net.evil.example/ssrf'],
  ])('fetches only from the WhatsApp CDN (the sender writes the URL): not from %s', async (_n, url) => {
    const key = await serve('/ssrf', Buffer.from('x'), 'image');
    const before = hits.length;
    const connects = edge.connects.length;
    const h = await setup({ config: config(), deps: local });
    const s = await h.start();
    s.upsert([waMessage({ chat: ALICE }, { imageMessage: { url: url(), mediaKey: key, caption: 'hi' } })]);
    await h.channel.idle();
    expect(hits.length).toBe(before);
    expect(edge.connects.length).toBe(connects);
    expect(h.handled[0]!.media).toEqual([]);
    expect(s.sent[0]!.content).toMatchObject({ text: expect.stringContaining('could not be downloaded') });
  });

  it('connects to the address its DNS check passed, and does not follow a redirect', async () => {
    const key = await serve('/pinned', Buffer.from('JPEG'), 'image');
    routes.set('/moved', { status: 302, location: `${base}/pinned` });
    const h = await setup({ config: config(), deps: local });
    const s = await h.start();
    const from = edge.connects.length;
    const hitsFrom = hits.length;
    s.upsert([image('/pinned', key)]);
    await h.channel.idle();
    expect(edge.connects.slice(from)).toEqual([{ host: 'mmg.whatsapp.net', address: CDN_ADDRESS }]);
    expect(readFileSync(h.handled[0]!.media[0]!.path).toString()).toBe('JPEG');
    s.upsert([image('/moved', key, { caption: 'moved' })]);
    await h.channel.idle();
    expect(hits.slice(hitsFrom)).toEqual(['/pinned', '/moved']);
    expect(h.handled[1]!.media).toEqual([]);
    expect(h.handled[1]!.text).toMatch(/could not be downloaded/);
  });

  it('gives up on a download that stalls, at its time limit, and saves nothing', async () => {
    routes.set('/stall', { status: 200, stall: true });
    const dir = tempDir('aw-wa-stall-');
    const out = await downloadMedia(
      {
        kind: 'image',
        mediaType: 'image',
        mimeType: 'image/jpeg',
        content: { url: `${base}/stall`, mediaKey: Buffer.alloc(32, 1) },
      },
      { dir, maxBytes: 1_000_000, timeoutMs: 300, net: edge },
    );
    expect(out).toMatchObject({ ok: false, reason: 'failed' });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('re-requests expired media from the phone once', async () => {
    const plain = Buffer.from('fresh copy');
    const key = await serve('/fresh', plain, 'image');
    routes.set('/expired', { status: 410 });
    const h = await setup({ config: config(), deps: local });
    const s = await h.start();
    let reuploads = 0;
    s.updateMediaMessage = async (msg) => {
      reuploads += 1;
      const copy = {
        ...msg,
        message: { imageMessage: { ...msg.message!.imageMessage!, url: `${base}/fresh` } },
      };
      return copy as WAMessage;
    };
    const from = hits.length;
    s.upsert([image('/expired', key)]);
    await h.channel.idle();
    expect(reuploads).toBe(1);
    expect(hits.slice(from)).toEqual(['/expired', '/fresh']);
    expect(readFileSync(h.handled[0]!.media[0]!.path).equals(plain)).toBe(true);
  });

  it('reports media that stays expired after the re-request', async () => {
    routes.set('/gone1', { status: 404 });
    const h = await setup({ config: config(), deps: local });
    const s = await h.start();
    let reuploads = 0;
    s.updateMediaMessage = async (msg) => {
      reuploads += 1;
      return {
        ...msg,
        message: { imageMessage: { ...msg.message!.imageMessage!, url: `${base}/gone2` } },
      } as WAMessage;
    };
    s.upsert([image('/gone1', Buffer.alloc(32, 1))]);
    await h.channel.idle();
    expect(reuploads).toBe(1);
    expect(h.handled).toEqual([]);
    expect(s.sent[0]!.content).toMatchObject({
      text: expect.stringContaining("no longer available on WhatsApp's servers"),
    });
  });

  it('rejects media that fails its integrity check', async () => {
    const key = await serve('/tampered', Buffer.from('original content here'), 'image');
    const body = Buffer.from(routes.get('/tampered')!.body!);
    body[3] = body[3]! ^ 0xff;
    routes.set('/tampered', { status: 200, body });
    const h = await setup({ config: config(), deps: local });
    const s = await h.start();
    s.upsert([image('/tampered', key)]);
    await h.channel.idle();
    expect(h.handled).toEqual([]);
    expect(mediaFiles(join(h.dir, 'media'))).toEqual([]);
    expect(s.sent).toHaveLength(1);
  });

  it('transcribes a voice note with media.transcribe.command; the output becomes the text', async () => {
    const plain = Buffer.from('OggS fake opus data');
    const key = await serve('/voice', plain, 'audio');
    const script = join(tempDir('aw-tr-'), 'transcribe.mjs');
    writeFileSync(
      script,
      "import { statSync } from 'node:fs';\nconst p = process.argv[2];\nconsole.log(`transcript of ${statSync(p).size} bytes at ${p.endsWith('.ogg') ? 'an ogg file' : p}`);\n",
    );
    const h = await setup({
      config: { ...config(), media: { transcribe: { command: [process.execPath, script, '{{path}}'] } } },
      deps: local,
    });
    const s = await h.start();
    s.upsert([
      waMessage(
        { chat: ALICE },
        {
          audioMessage: {
            url: `${base}/voice`,
            mediaKey: key,
            mimetype: 'audio/ogg; codecs=opus',
            ptt: true,
          },
        },
      ),
    ]);
    await h.channel.idle();
    expect(h.handled[0]).toMatchObject({
      text: `transcript of ${plain.length} bytes at an ogg file`,
      media: [expect.objectContaining({ kind: 'voice' })],
    });
  });

  it.runIf(process.platform === 'linux')(
    "with the relay's launcher (agents.launcher) the transcriber starts from it",
    async () => {
      const key = await serve('/voice-launched', Buffer.from('OggS more opus'), 'audio');
      const launcher = startLauncher();
      try {
        const h = await setup({
          config: {
            ...config(),
            media: {
              transcribe: {
                command: [process.execPath, '-e', 'console.log(`heard by ${process.ppid}`)', '{{path}}'],
              },
            },
          },
          deps: { ...local, launcher },
        });
        const s = await h.start();
        s.upsert([
          waMessage(
            { chat: ALICE },
            {
              audioMessage: {
                url: `${base}/voice-launched`,
                mediaKey: key,
                mimetype: 'audio/ogg',
                ptt: true,
              },
            },
          ),
        ]);
        await h.channel.idle();
        expect(h.handled[0]?.text).toBe(`heard by ${launcher.pid()}`);
        expect(launcher.pid()).not.toBe(process.pid);
      } finally {
        await launcher.stop();
      }
    },
  );
});

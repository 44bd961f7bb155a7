// Inbound WhatsApp media against a hostile network: the sender's media URL is a genuine
// https://mmg.whatsapp.net link, but DNS for that name answers with this machine, the LAN or the cloud
// metadata address (a poisoned resolver, a rebinding attacker). Through the real channel, download,
// decryption and save; only the far edge is faked: one DNS table that both the relay's resolver seam
// and the global fetch (the old download path, which asked the system resolver) consult, and a
// "network" that records every connection and carries it to a local server holding valid media.
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { encryptedStream } from '@whiskeysockets/baileys';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { PinnedRequest } from '../../src/media/guarded-get.js';
import { CDN, CDN_ADDRESS } from '../channels/whatsapp/cdn.js';
import { setup } from '../channels/whatsapp/harness.js';
import { waMessage } from '../channels/whatsapp/messages.js';

const ALICE = '15557654321@s.whatsapp.net';
const PLAIN = Buffer.from('SECRET FROM THE INSIDE');

let server: Server;
let port = 0;
let body: Buffer;
let mediaKey: Uint8Array;
const served: string[] = [];

beforeAll(async () => {
  const enc = await encryptedStream(PLAIN, 'image');
  body = readFileSync(enc.encFilePath);
  rmSync(enc.encFilePath, { force: true });
  mediaKey = enc.mediaKey;
  server = http.createServer((req, res) => {
    served.push(req.url ?? '');
    res.writeHead(200, { 'content-length': body.length }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

afterEach(() => {
  vi.unstubAllGlobals();
  served.length = 0;
});

/** The hostile network: a DNS table, and every connection recorded with the address it went to. */
function network(answers: () => string[]) {
  const connects: { host: string; address: string }[] = [];
  const lookups: string[] = [];
  const resolve = async (host: string) => {
    lookups.push(host);
    return answers();
  };
  const toLocal = (url: URL) => new URL(`${url.pathname}${url.search}`, `http://127.0.0.1:${port}`);
  const transport = (req: PinnedRequest) => {
    connects.push({ host: req.url.hostname, address: req.address });
    return new Promise<http.IncomingMessage>((ok, fail) => {
      const r = http.request(toLocal(req.url), { headers: req.headers, signal: req.signal }, ok);
      r.once('error', fail);
      r.end();
    });
  };
  // A fetch() of a WhatsApp name asks the same DNS and connects to its first answer.
  const realFetch = globalThis.fetch;
  vi.stubGlobal('fetch', async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : input);
    if (!url.hostname.endsWith('whatsapp.net')) return realFetch(input, init);
    connects.push({ host: url.hostname, address: (await resolve(url.hostname))[0]! });
    return realFetch(toLocal(url), { ...init, redirect: 'manual' });
  });
  return { connects, lookups, mediaNet: { resolve, transport } };
}

async function receive(net: ReturnType<typeof network>) {
  const h = await setup({
    config: { whatsapp: { allowFrom: ['+15557654321'] } },
    deps: { mediaNet: net.mediaNet },
  });
  const s = await h.start();
  s.upsert([
    waMessage(
      { chat: ALICE },
      { imageMessage: { url: `${CDN}/v/t62/photo.enc`, mediaKey, mimetype: 'image/jpeg', caption: 'look' } },
    ),
  ]);
  await h.channel.idle();
  return { h, s };
}

describe('a WhatsApp media name that resolves to a non-public address', () => {
  it.each([
    ['loopback', ['127.0.0.1']],
    ['private', ['10.0.0.1']],
    ['link-local (cloud metadata)', ['169.254.169.254']],
    ['one public and one loopback', [CDN_ADDRESS, '127.0.0.1']],
    ['IPv4-mapped loopback', ['::ffff:127.0.0.1']],
    ['IPv6 loopback', ['::1']],
  ])('%s: nothing is connected to, nothing saved, the caption still runs', async (_n, answer) => {
    const net = network(() => answer);
    const { h, s } = await receive(net);
    expect(net.connects).toEqual([]);
    expect(served).toEqual([]);
    expect(net.lookups).toEqual(['mmg.whatsapp.net']);
    expect(h.handled).toHaveLength(1);
    expect(h.handled[0]!.media).toEqual([]);
    expect(h.handled[0]!.text).toMatch(
      /^look\n\[The image attached to this message could not be downloaded\.\]$/,
    );
    const saved = join(h.dir, 'media');
    expect(existsSync(saved) ? readdirSync(saved) : []).toEqual([]);
    expect(JSON.stringify(s.sent)).toContain('could not be downloaded');
    // The log says why, for the operator.
    expect(JSON.stringify(h.logs)).toMatch(/points at an? [a-z0-9 -]+ address/i);
  });

  it('a public answer is used, and the connection stays on it when DNS changes afterwards (rebinding)', async () => {
    let calls = 0;
    const net = network(() => (calls++ === 0 ? [CDN_ADDRESS] : ['127.0.0.1']));
    const { h } = await receive(net);
    expect(calls).toBe(1);
    expect(net.connects).toEqual([{ host: 'mmg.whatsapp.net', address: CDN_ADDRESS }]);
    expect(readFileSync(h.handled[0]!.media[0]!.path).equals(PLAIN)).toBe(true);
  });
});

// Inbound Twilio attachments against a hostile network: a media URL on the allowed origin that
// redirects to this machine, to a local name, or to a name whose DNS answer is private or changes
// between check and connect; and a signed webhook replayed many times. Through the whole relay (real
// queue, fake claude as a child process) where the bug was seen; the DNS and connection edge is faked
// only where a public address is needed (Twilio's CDN).
import { readdirSync, readFileSync } from 'node:fs';
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { TwilioChannel } from '../../src/channels/twilio/index.js';
import { downloadAll } from '../../src/channels/twilio/media-download.js';
import type { PinnedRequest } from '../../src/media/guarded-get.js';
import { type RunningRelay, startRelay } from '../../src/relay.js';
import {
  ACCOUNT,
  type FakeTwilio,
  fakeTwilioSection,
  sid,
  startFakeTwilio,
  TOKEN,
} from '../channels/twilio/helpers/fake-twilio.js';
import { smsParams, twilioPost } from '../channels/twilio/helpers/harness.js';
import { type Home, makeHome, waitFor } from '../e2e/helpers.js';
import { tempDir } from '../helpers/tmp.js';

let home: Home | undefined;
let relay: RunningRelay | undefined;
let fake: FakeTwilio | undefined;
const servers: Server[] = [];
afterEach(async () => {
  await relay?.stop(0);
  relay = undefined;
  await fake?.close();
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
  home?.cleanup();
  home = undefined;
});

/** A server on 127.0.0.1 that must never be reached: it records every request. */
async function secretServer() {
  const hits: { path: string; authorization?: string }[] = [];
  const server = http.createServer((req, res) => {
    hits.push({ path: req.url ?? '', authorization: req.headers.authorization });
    res.setHeader('content-type', 'image/png');
    res.end('SECRET');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push(server);
  return { hits, port: (server.address() as AddressInfo).port };
}

async function startTwilioRelay() {
  fake = await startFakeTwilio();
  home = makeHome({ twilio: fakeTwilioSection(fake) });
  relay = await startRelay(home.ctx());
  return `http://127.0.0.1:${(relay.channels.get('twilio') as TwilioChannel).port()}/twilio/inbound`;
}

const withMedia = (messageSid: string, mediaSids: string[]) =>
  smsParams({
    MessageSid: messageSid,
    Body: 'look',
    NumMedia: String(mediaSids.length),
    ...Object.fromEntries(
      mediaSids.flatMap((m, i) => [
        [`MediaUrl${i}`, fake!.mediaUrl(messageSid, m)],
        [`MediaContentType${i}`, 'image/png'],
      ]),
    ),
  });

describe('inbound attachment redirects', () => {
  for (const [name, host] of [
    ['loopback address', '127.0.0.1'],
    ['local name', 'localhost'],
  ] as const) {
    it(`a redirect from the allowed origin to a ${name} is not followed`, async () => {
      const url = await startTwilioRelay();
      const secret = await secretServer();
      fake!.media.set('ME1', { type: 'redirect', location: `http://${host}:${secret.port}/secret` });
      expect((await twilioPost(url, withMedia(sid('MM'), ['ME1']))).status).toBe(200);
      expect(await waitFor(() => (fake?.created.length ?? 0) >= 1)).toBe(true);
      await relay!.queue.whenIdle();
      expect(secret.hits).toEqual([]);
      const prompt = home!.events().find((e) => e.ev === 'start')?.prompt ?? '';
      expect(prompt).toContain('[attachment 1 (image/png) could not be downloaded]');
      expect(prompt).not.toContain('attached:');
      await expect
        .poll(() => fake!.created.map((m) => m.body))
        .toContain('An attachment could not be received. Please send it again.');
    });
  }

  it('a signed webhook with 10 attachments replayed 50 times downloads each attachment once', async () => {
    const url = await startTwilioRelay();
    const media = Array.from({ length: 10 }, (_, i) => `ME${i}`);
    for (const m of media)
      fake!.media.set(m, { type: 'bytes', data: Buffer.from(m), contentType: 'image/png' });
    const params = withMedia(sid('MM'), media);
    for (let i = 0; i < 51; i++) expect((await twilioPost(url, params)).status).toBe(200);
    expect(await waitFor(() => (fake?.created.length ?? 0) >= 1)).toBe(true);
    await relay!.queue.whenIdle();
    expect(home!.events().filter((e) => e.ev === 'start')).toHaveLength(1);
    expect(fake!.mediaRequests).toHaveLength(10);
  });
});

describe('each hop is checked, and the connection goes to the checked address', () => {
  const creds = { accountSid: ACCOUNT, username: ACCOUNT, password: TOKEN };
  const dir = () => tempDir('aw-hostile-media-');

  /** The far edge: every connection is made to the local CDN server, recording where it was meant to go. */
  async function cdnEdge() {
    const seen: { path: string; authorization?: string }[] = [];
    const server = http.createServer((req, res) => {
      seen.push({ path: req.url ?? '', authorization: req.headers.authorization });
      res.setHeader('content-type', 'image/png');
      res.end('CDN-BYTES');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    servers.push(server);
    const port = (server.address() as AddressInfo).port;
    const pinned: { host: string; address: string }[] = [];
    const transport = (req: PinnedRequest) => {
      const direct = req.url.origin === new URL(fake!.url).origin;
      if (!direct) pinned.push({ host: req.url.hostname, address: req.address });
      return new Promise<http.IncomingMessage>((resolve, reject) => {
        const target = direct ? req.url : new URL(`http://127.0.0.1:${port}${req.url.pathname}`);
        const r = http.request(target, { headers: req.headers, signal: req.signal }, resolve);
        r.once('error', reject);
        r.end();
      });
    };
    return { seen, pinned, transport };
  }

  it("Twilio's redirect to its CDN is followed, without the credentials", async () => {
    fake = await startFakeTwilio();
    const edge = await cdnEdge();
    fake.media.set('ME1', { type: 'redirect', location: 'https://media.cdn.twilio.test/f/abc' });
    const lookups: string[] = [];
    const resolve = async (host: string) => {
      lookups.push(host);
      return ['34.117.59.81'];
    };
    const out = await downloadAll([{ url: fake.mediaUrl(sid('MM'), 'ME1'), contentType: 'image/png' }], {
      net: { resolve, transport: edge.transport },
      creds,
      apiBaseUrl: fake.url,
      dir: dir(),
      maxBytes: 1_000_000,
      deadlineMs: 5000,
    });
    expect(out.problems).toEqual([]);
    expect(readFileSync(out.media[0]!.path, 'utf8')).toBe('CDN-BYTES');
    expect(fake.mediaRequests).toEqual([{ path: expect.stringContaining('/Media/ME1'), authorized: true }]);
    expect(edge.seen).toEqual([{ path: '/f/abc', authorization: undefined }]);
    expect(edge.pinned).toEqual([{ host: 'media.cdn.twilio.test', address: '34.117.59.81' }]);
    expect(lookups).toEqual(['media.cdn.twilio.test']);
  });

  it.each([
    ['a private address', ['10.1.2.3']],
    ['one public and one loopback address', ['34.117.59.81', '127.0.0.1']],
    ['a link-local address', ['169.254.169.254']],
    ['an IPv4-mapped loopback address', ['::ffff:127.0.0.1']],
  ])('a redirect to a name that resolves to %s is refused before connecting', async (_n, answer) => {
    fake = await startFakeTwilio();
    const edge = await cdnEdge();
    fake.media.set('ME1', { type: 'redirect', location: 'https://evil.test/x' });
    const d = dir();
    const out = await downloadAll([{ url: fake.mediaUrl(sid('MM'), 'ME1'), contentType: 'image/png' }], {
      net: { resolve: async () => answer, transport: edge.transport },
      creds,
      apiBaseUrl: fake.url,
      dir: d,
      maxBytes: 1_000_000,
      deadlineMs: 5000,
    });
    expect(out.media).toEqual([]);
    expect(out.problems.map((p) => p.reason)).toEqual(['host']);
    expect(edge.pinned).toEqual([]);
    expect(edge.seen).toEqual([]);
    expect(readdirSync(d)).toEqual([]);
  });

  it('a DNS answer that changes after the check (rebinding) does not move the connection', async () => {
    fake = await startFakeTwilio();
    const edge = await cdnEdge();
    fake.media.set('ME1', { type: 'redirect', location: 'https://rebind.test/x' });
    let calls = 0;
    const resolve = async () => (calls++ === 0 ? ['34.117.59.81'] : ['127.0.0.1']);
    const out = await downloadAll([{ url: fake.mediaUrl(sid('MM'), 'ME1'), contentType: 'image/png' }], {
      net: { resolve, transport: edge.transport },
      creds,
      apiBaseUrl: fake.url,
      dir: dir(),
      maxBytes: 1_000_000,
      deadlineMs: 5000,
    });
    expect(out.problems).toEqual([]);
    expect(calls).toBe(1);
    expect(edge.pinned).toEqual([{ host: 'rebind.test', address: '34.117.59.81' }]);
  });

  it('a redirect loop ends', async () => {
    fake = await startFakeTwilio();
    const loop = fake.mediaUrl(sid('MM'), 'ME1');
    fake.media.set('ME1', { type: 'redirect', location: loop });
    const out = await downloadAll([{ url: loop, contentType: 'image/png' }], {
      creds,
      apiBaseUrl: fake.url,
      dir: dir(),
      maxBytes: 1_000_000,
      deadlineMs: 5000,
    });
    expect(out.problems.map((p) => p.reason)).toEqual(['host']);
    expect(fake.mediaRequests.length).toBe(6);
  });
});

// Agent-written HTML and SVG on the relay's public media URL. The agent names its
// own files; the relay hosts them for Twilio to fetch, at a URL anyone holding it can open in a
// browser. Real path end to end: the media policy stages the file, the Twilio channel hosts it and
// hands the URL to the fake REST server, and the real express app answers GET and HEAD on 127.0.0.1.
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/schema.js';
import { createLogger } from '../../src/log.js';
import { mediaPolicy } from '../../src/queue/adapters.js';
import { composeItems } from '../../src/queue/compose.js';
import { type FakeTwilio, startFakeTwilio } from '../channels/twilio/helpers/fake-twilio.js';
import { createInbox, startChannel, twilioConfig } from '../channels/twilio/helpers/harness.js';
import { tempDir } from '../helpers/tmp.js';

const base = realpathSync(tempDir('aw-serve-'));
const root = join(base, 'work');
mkdirSync(root);
const FILES: Record<string, string> = {
  'report.html': '<!doctype html><script>fetch("/twilio/inbound/media/").then(r=>r.text())</script>',
  'logo.svg': '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.domain)</script></svg>',
  'page.xhtml': '<html xmlns="http://www.w3.org/1999/xhtml"><script>alert(1)</script></html>',
  'notes.md': '# notes <script>alert(1)</script>',
  // Bytes that look like HTML behind an image name: nosniff keeps them an image.
  'chart.png': '<html><script>alert(1)</script></html>',
  'notes.txt': '<script>alert(1)</script>',
};
for (const [name, body] of Object.entries(FILES)) writeFileSync(join(root, name), body);

const policy = mediaPolicy(configSchema.parse({ media: { allowedRoots: [root] } }), join(base, 'staged'));
const log = createLogger({ level: 'silent' });
let fake: FakeTwilio;
let twilio: Awaited<ReturnType<typeof startChannel>>;

beforeAll(async () => {
  fake = await startFakeTwilio();
  twilio = await startChannel(
    twilioConfig({ apiBaseUrl: fake.url, mediaBaseUrl: 'https://relay.example/twilio/inbound/media' }),
    (db) => createInbox(db).handler,
  );
});

afterAll(async () => {
  await twilio.stop();
  await fake.close();
});

/** Sends `name` as the agent would attach it; returns the local URL Twilio would fetch. */
async function hosted(name: string): Promise<string> {
  const items = await composeItems(
    policy,
    { text: '', media: [name], channel: 'twilio', cwd: root, limit: 1600 },
    log,
  );
  const file = items.find((i) => i.type === 'file');
  expect(file, name).toBeDefined();
  const before = fake.created.length;
  expect((await twilio.channel.send('+15551234567', file!)).ok).toBe(true);
  const url = fake.created[before]?.mediaUrl[0] ?? '';
  return `${twilio.base}/twilio/inbound/media/${url.split('/').pop()}`;
}

describe('agent-written files on the public media URL', () => {
  it.each(['report.html', 'logo.svg', 'page.xhtml', 'notes.md'])(
    '%s is an opaque, sandboxed download, never a page',
    async (name) => {
      const url = await hosted(name);
      for (const method of ['GET', 'HEAD']) {
        const res = await fetch(url, { method });
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe('application/octet-stream');
        expect(res.headers.get('content-disposition')).toBe('attachment');
        expect(res.headers.get('content-security-policy')).toBe('sandbox');
        expect(res.headers.get('x-content-type-options')).toBe('nosniff');
        if (method === 'GET') expect(await res.text()).toBe(FILES[name]);
      }
    },
  );

  it.each([
    ['chart.png', 'image/png'],
    ['notes.txt', 'text/plain'],
  ])('%s stays inline for the channel, but sandboxed and never sniffed', async (name, type) => {
    const res = await fetch(await hosted(name));
    expect(res.headers.get('content-type')?.split(';')[0]).toBe(type);
    expect(res.headers.get('content-disposition')).toBe('inline');
    expect(res.headers.get('content-security-policy')).toBe('sandbox');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await res.text()).toBe(FILES[name]);
  });
});

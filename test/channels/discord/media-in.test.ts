// One inbound attachment against the fake Discord's CDN: the cap holds whether the declared size tells
// the truth or not, and an address off the CDN is never fetched.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fetchAttachment } from '../../../src/channels/discord/media-in.js';
import { type FakeDiscord, startFakeDiscord } from './fake-discord.js';

let fake: FakeDiscord | undefined;
let dir: string | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

async function rig() {
  fake = await startFakeDiscord();
  dir = mkdtempSync(join(tmpdir(), 'aw-discord-media-'));
  return { fake, deps: { dir, maxBytes: 100, apiRoot: fake.api } };
}
const ref = (url: string, sizeBytes: number) => ({
  kind: 'document' as const,
  url,
  sizeBytes,
  mimeType: 'text/plain',
  fileName: 'a.txt',
});

describe('fetchAttachment', () => {
  it('a file under the cap is saved, private, with its size', async () => {
    const { fake, deps } = await rig();
    const url = fake.addAttachment('ok.txt', Buffer.alloc(50, 1));
    const got = await fetchAttachment(ref(url, 50), deps);
    expect(got).toMatchObject({ ok: true, media: { sizeBytes: 50, fileName: 'a.txt', kind: 'document' } });
    expect(readdirSync(deps.dir)).toHaveLength(1);
  });

  it('a declared size over the cap is refused before any download', async () => {
    const { fake, deps } = await rig();
    const url = fake.addAttachment('big.txt', Buffer.alloc(500, 1));
    const got = await fetchAttachment(ref(url, 500), deps);
    expect(got).toMatchObject({ ok: false, userMessage: expect.stringMatching(/over the .* limit/) });
    expect(fake.downloads).toEqual([]);
  });

  it('a declared size that lies is cut off by bytes read, and nothing is kept', async () => {
    const { fake, deps } = await rig();
    const url = fake.addAttachment('liar.txt', Buffer.alloc(500, 1));
    const got = await fetchAttachment(ref(url, 10), deps);
    expect(got).toMatchObject({ ok: false, log: expect.stringMatching(/too_large/) });
    expect(fake.downloads).toEqual(['liar.txt']);
    expect(readdirSync(deps.dir)).toEqual([]);
  });

  it('an address off the CDN (and off the API root) is never fetched', async () => {
    const { fake, deps } = await rig();
    fake.addAttachment('x.txt', Buffer.alloc(5, 1));
    const got = await fetchAttachment(
      ref(`${fake.api.replace('127.0.0.1', 'localhost')}/../attachments/x.txt`, 5),
      deps,
    );
    expect(got).toMatchObject({ ok: false, log: 'not a Discord CDN address' });
    expect(fake.downloads).toEqual([]);
  });
});

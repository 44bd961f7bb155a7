import { readdirSync, readFileSync, statSync } from 'node:fs';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { extensionFor, mediaKindFor, saveInbound } from '../../src/media/inbound.js';
import { tempDir } from '../helpers/tmp.js';

function* chunks(n: number, size: number) {
  for (let i = 0; i < n; i++) yield Buffer.alloc(size, 97);
}

describe('saveInbound', () => {
  it('writes a file under a generated name with mode 0600', async () => {
    const dir = tempDir('aw-in-');
    const r = await saveInbound(Readable.from(chunks(3, 10)), { dir, maxBytes: 100, mimeType: 'image/png' });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.sizeBytes).toBe(30);
    expect(r.path.endsWith('.png')).toBe(true);
    expect(readFileSync(r.path, 'utf8')).toBe('a'.repeat(30));
    expect(statSync(r.path).mode & 0o777).toBe(0o600);
  });

  it('aborts by bytes read, whatever was declared, and leaves no file', async () => {
    const dir = tempDir('aw-in-');
    const r = await saveInbound(Readable.from(chunks(1000, 1024)), {
      dir,
      maxBytes: 5000,
      mimeType: 'video/mp4',
    });
    expect(r).toMatchObject({ ok: false, reason: 'too_large' });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('reports a failing source and leaves no file', async () => {
    const dir = tempDir('aw-in-');
    async function* broken() {
      yield Buffer.from('x');
      throw new Error('socket hang up');
    }
    const r = await saveInbound(broken(), { dir, maxBytes: 100, mimeType: 'text/plain' });
    expect(r).toMatchObject({ ok: false, reason: 'failed', message: 'socket hang up' });
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('extensionFor / mediaKindFor', () => {
  it.each([
    ['image/jpeg', 'jpg', 'image'],
    ['audio/ogg; codecs=opus', 'ogg', 'voice'],
    ['audio/mpeg', 'mp3', 'audio'],
    ['video/mp4', 'mp4', 'video'],
    ['image/webp', 'webp', 'sticker'],
    ['application/x-evil', 'bin', 'document'],
  ])('%s → .%s, %s', (mime, ext, kind) => {
    expect(extensionFor(mime)).toBe(ext);
    expect(mediaKindFor(mime)).toBe(kind);
  });
});

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { chatFolderName } from '../../src/core/workspace.js';
import {
  extensionFor,
  inboundChatDir,
  inboundDirOf,
  madeInboundChatDir,
  mediaKindFor,
  saveInbound,
} from '../../src/media/inbound.js';
import { tempDir } from '../helpers/tmp.js';

function* chunks(n: number, size: number) {
  for (let i = 0; i < n; i++) yield Buffer.alloc(size, 97);
}

describe('inboundChatDir: one folder per chat under the received-files root', () => {
  const root = '/s/media/inbound';
  it.each([
    ['twilio', '+15551234567', 'twilio_15551234567-'],
    ['twilio', 'whatsapp:+15551234567', 'twilio_whatsapp_15551234567-'],
    ['telegram', '-100123', 'telegram_-100123-'],
    ['whatsapp', '120363@g.us', 'whatsapp_120363_g.us-'],
    ['whatsapp', '15551234567@s.whatsapp.net', 'whatsapp_15551234567_s.whatsapp.net-'],
  ] as const)('%s %s → the per-chat workspace name of its chat key', (channel, chatId, prefix) => {
    const dir = inboundDirOf(root, channel, chatId);
    expect(dir).toBe(`${root}/${chatFolderName(`${channel}:${chatId}`)}`);
    expect(dir).toBe(inboundChatDir(root, `${channel}:${chatId}`));
    expect(dir.slice(root.length + 1)).toMatch(
      new RegExp(`^${prefix.replace(/[.+]/g, '\\$&')}[0-9a-f]{10}$`),
    );
  });

  it('keeps chats whose keys flatten alike apart, and never leaves the root', () => {
    const a = inboundChatDir(root, 'twilio:+1555');
    const b = inboundChatDir(root, 'twilio:_1555');
    expect(a).not.toBe(b);
    for (const chat of ['telegram:../../etc', 'whatsapp:/abs', 'console:..'] as const) {
      const d = inboundChatDir(root, chat);
      expect(d.startsWith(`${root}/`)).toBe(true);
      expect(d.slice(root.length + 1)).not.toMatch(/\/|^\.\.?$/);
    }
  });

  it('madeInboundChatDir makes the folder private (0700), and again is a no-op', () => {
    const root2 = tempDir('aw-in-');
    const dir = madeInboundChatDir(root2, 'telegram:42');
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(madeInboundChatDir(root2, 'telegram:42')).toBe(dir);
    expect(readdirSync(root2)).toEqual([chatFolderName('telegram:42')]);
  });
});

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

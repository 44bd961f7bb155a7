import { describe, expect, it } from 'vitest';
import { linkText, sendTextOrFile } from '../../src/channels/send-item.js';
import type { OutboundItem, SendResult } from '../../src/core/types.js';

describe('linkText', () => {
  it.each([
    [{ url: 'https://x.test/a' }, 'https://x.test/a'],
    [{ url: 'https://x.test/a', caption: 'the report' }, 'the report\nhttps://x.test/a'],
    [{ url: 'https://x.test/a', caption: '  \n' }, 'https://x.test/a'],
  ])('%j → %j', (item, text) => {
    expect(linkText(item)).toBe(text);
  });
});

describe('sendTextOrFile', () => {
  const file: OutboundItem = {
    type: 'file',
    path: '/f.png',
    mimeType: 'image/png',
    fileName: 'f.png',
    sizeBytes: 3,
  };
  it.each<[OutboundItem, string]>([
    [{ type: 'text', text: 'hi *there*' }, 'text:false:hi *there*'],
    [{ type: 'text', text: 'rm -rf *', code: true }, 'text:true:rm -rf *'],
    [{ type: 'url', url: 'https://x.test/a', caption: 'see' }, 'text:false:see\nhttps://x.test/a'],
    [file, 'file:f.png'],
  ])('%j goes out as %j', async (item, seen) => {
    const calls: string[] = [];
    const ok: SendResult = { ok: true, providerId: 'p1' };
    const r = await sendTextOrFile(item, {
      text: async (text, code) => {
        calls.push(`text:${code}:${text}`);
        return ok;
      },
      file: async (f) => {
        calls.push(`file:${f.fileName}`);
        return ok;
      },
    });
    expect(calls).toEqual([seen]);
    expect(r).toEqual(ok);
  });

  it('refuses an item of a type it does not know, without retries and without sending', async () => {
    const calls: string[] = [];
    const r = await sendTextOrFile({ type: 'poll' } as unknown as OutboundItem, {
      text: async () => {
        calls.push('text');
        return { ok: true };
      },
      file: async () => {
        calls.push('file');
        return { ok: true };
      },
    });
    expect(calls).toEqual([]);
    expect(r).toMatchObject({ ok: false, retryable: false, error: expect.stringContaining('poll') });
  });
});

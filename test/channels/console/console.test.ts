import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ConsoleChannel, renderItem } from '../../../src/channels/console/console.js';
import type { InboundMessage, OutboundItem } from '../../../src/core/types.js';

describe('renderItem', () => {
  it.each<[OutboundItem, string]>([
    [{ type: 'text', text: 'hi\nthere' }, 'hi\nthere'],
    [
      { type: 'file', path: '/w/a.png', mimeType: 'image/png', fileName: 'a.png', sizeBytes: 2048 },
      '[file] /w/a.png (image/png, 2 KB)',
    ],
    [
      {
        type: 'file',
        path: '/w/b.pdf',
        mimeType: 'application/pdf',
        fileName: 'b.pdf',
        sizeBytes: 3 * 1048576,
        caption: 'report',
      },
      '[file] /w/b.pdf (application/pdf, 3.0 MB) report',
    ],
    [{ type: 'url', url: 'https://example.com/x' }, '[link] https://example.com/x'],
  ])('%j', (item, out) => {
    expect(renderItem(item)).toBe(out);
  });
});

describe('ConsoleChannel', () => {
  it('turns each non-empty line into a message of console:local, in order, and ends after the last is handled', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const errors = new PassThrough();
    let errText = '';
    errors.on('data', (d) => {
      errText += d;
    });
    const seen: InboundMessage[] = [];
    let ended = false;
    const done = new Promise<void>((resolve) => {
      const ch = new ConsoleChannel({
        input,
        output,
        errors,
        onEnd: () => {
          ended = true;
          resolve();
        },
      });
      void ch.start(async (msg) => {
        // A slow store: EOF must still wait for this line.
        await new Promise((r) => setTimeout(r, 20));
        seen.push(msg);
        return msg.text === 'too many'
          ? { type: 'rejected', reason: 'queue full' }
          : { type: 'stored', inboxId: seen.length };
      });
    });
    input.end('first\n\n   \nsecond\ntoo many\n');
    await done;
    expect(ended).toBe(true);
    expect(seen.map((m) => [m.channel, m.chatId, m.text])).toEqual([
      ['console', 'local', 'first'],
      ['console', 'local', 'second'],
      ['console', 'local', 'too many'],
    ]);
    expect(new Set(seen.map((m) => m.messageId)).size).toBe(3);
    expect(errText).toBe('(not sent: queue full)\n');
  });

  it('prints what it is sent', async () => {
    const output = new PassThrough();
    let text = '';
    output.on('data', (d) => {
      text += d;
    });
    const ch = new ConsoleChannel({
      input: new PassThrough(),
      output,
      errors: new PassThrough(),
      onEnd: () => undefined,
    });
    expect(await ch.send('local', { type: 'text', text: 'hello' })).toEqual({ ok: true });
    await ch.send('local', { type: 'url', url: 'https://example.com/a.pdf' });
    expect(text).toBe('hello\n[link] https://example.com/a.pdf\n');
  });
});

// The two steps every channel shares for an inbound message: delivery with retries while the store
// refuses it, and folding an attachment's download into the text.
import { describe, expect, it } from 'vitest';
import { deliverWithRetry, withAttachment } from '../../src/channels/inbound-common.js';
import type { InboundOutcome } from '../../src/channels/types.js';
import type { InboundMedia, InboundMessage } from '../../src/core/types.js';

const msg = { channel: 'x', chatId: '1', messageId: 'm' } as InboundMessage;
const log = { warn: () => undefined };
const voice: InboundMedia = { kind: 'voice', path: '/v.ogg', mimeType: 'audio/ogg', sizeBytes: 3 };
const photo: InboundMedia = { kind: 'image', path: '/p.jpg', mimeType: 'image/jpeg', sizeBytes: 3 };

describe('deliverWithRetry', () => {
  it('retries a refused store after each delay, then gives up with the last outcome', async () => {
    const waits: number[] = [];
    let calls = 0;
    const out = await deliverWithRetry(
      async () => {
        calls++;
        return { type: 'failed', error: 'disk full' };
      },
      msg,
      { delaysMs: [1, 2], sleep: async (ms) => void waits.push(ms), log },
    );
    expect(out).toEqual({ type: 'failed', error: 'disk full' });
    expect(calls).toBe(3);
    expect(waits).toEqual([1, 2]);
  });

  it('a throw counts as a failure; a stored message ends the retries', async () => {
    const outcomes: (InboundOutcome | Error)[] = [new Error('boom'), { type: 'stored', inboxId: 7 }];
    const out = await deliverWithRetry(
      async () => {
        const o = outcomes.shift();
        if (o instanceof Error) throw o;
        return o as InboundOutcome;
      },
      msg,
      { delaysMs: [1, 1, 1], sleep: async () => undefined, log },
    );
    expect(out).toEqual({ type: 'stored', inboxId: 7 });
    expect(outcomes).toHaveLength(0);
  });

  it('is failed, never stored, before the channel was started', async () => {
    expect(await deliverWithRetry(undefined, msg, { log })).toEqual({
      type: 'failed',
      error: 'channel not started',
    });
  });
});

describe('withAttachment', () => {
  const failed = { ok: false as const, userMessage: 'too big', log: 'cap' };
  it.each([
    ['failed, no text: nothing to pass on', '', failed, undefined, 1, 0],
    [
      'failed, with text: the text and a note',
      'look',
      failed,
      'look\n[The voice attached to this message could not be downloaded.]',
      1,
      0,
    ],
    ['voice, no text: its transcript', '', { ok: true as const, media: voice }, 'heard words', 0, 1],
    ['voice with text: the text stays', 'also', { ok: true as const, media: voice }, 'also', 0, 1],
    ['a photo: the text stays', 'see', { ok: true as const, media: photo }, 'see', 0, 1],
  ])('%s', async (_name, text, got, want, notified, files) => {
    let n = 0;
    const media: InboundMedia[] = [];
    const out = await withAttachment(text, 'voice', got, media, {
      notify: async () => void n++,
      transcribe: async () => 'heard words',
    });
    expect(out).toBe(want);
    expect(n).toBe(notified);
    expect(media).toHaveLength(files);
  });
});

// The outbox notes when a send begins only for a channel that can ask its provider about it, and
// hands that time back when the same chunk is sent again (after a failed try, or a restart).
import { afterEach, describe, expect, it } from 'vitest';
import type { SendOptions } from '../../src/channels/types.js';
import type { OutboundItem, SendResult } from '../../src/core/types.js';
import { Deliverer } from '../../src/queue/delivery.js';
import { enqueueOutbound, rowsForKey } from '../../src/store/sqlite/outbox.js';
import { sqliteQueueStore } from '../../src/store/sqlite/queue-sqlite.js';
import { tempDb } from '../store/helpers.js';
import { FakeChannel, memoryLog } from './helpers.js';

class CheckingChannel extends FakeChannel {
  readonly checksResends = true;
  readonly opts: (SendOptions | undefined)[] = [];
  override async send(chatId: string, item: OutboundItem, opts?: SendOptions): Promise<SendResult> {
    this.opts.push(opts);
    return super.send(chatId, item);
  }
}

let t: ReturnType<typeof tempDb>;
afterEach(() => t?.cleanup());

const retryNow = { retryForMs: 60_000, backoffMs: () => 0, waitMs: 0 };

describe('send attempts', () => {
  it('a checking channel gets the first attempt time on the retry, not on the first send', async () => {
    t = tempDb();
    const channel = new CheckingChannel('twilio');
    channel.failNext.push({ ok: false, error: 'timeout', retryable: true });
    enqueueOutbound(t.db, 'twilio:+15551234567', 'in:1', [{ type: 'text', text: 'hi' }], 1);
    const d = new Deliverer(
      sqliteQueueStore(t.db),
      new Map([['twilio', channel]]),
      memoryLog().log,
      () => 42,
      retryNow,
    );
    d.kick('twilio:+15551234567');
    await d.idle();
    expect(channel.opts).toEqual([undefined, { attemptedAt: 42, knownIds: [] }]);
    expect(rowsForKey(t.db, 'in:1').map((r) => [r.status, r.attemptAt])).toEqual([['sent', 42]]);
  });

  it('hands over the provider ids of the chunks already sent to the chat, so alike sends are not taken for the lost one', async () => {
    t = tempDb();
    const channel = new CheckingChannel('twilio');
    const chat = 'twilio:+15551234567';
    const photo = { type: 'url', url: 'https://example.com/a.png' } as const;
    const d = new Deliverer(
      sqliteQueueStore(t.db),
      new Map([['twilio', channel]]),
      memoryLog().log,
      () => 42,
      retryNow,
    );
    // Another chat's photo went out just before: its id is no concern of this chat's lookup.
    channel.failNext.push({ ok: true, providerId: 'SM-other-chat' });
    enqueueOutbound(t.db, 'twilio:+15557654321', 'in:0', [photo], 1);
    d.kick('twilio:+15557654321');
    await d.idle();
    // First chunk out; the second fails once after its send began (as a dropped connection would).
    channel.failNext.push(
      { ok: true, providerId: 'SM-first' },
      { ok: false, error: 'reset', retryable: true },
    );
    enqueueOutbound(t.db, chat, 'in:1', [photo, photo], 1);
    d.kick(chat);
    await d.idle();
    expect(channel.opts).toEqual([
      undefined,
      undefined,
      undefined,
      { attemptedAt: 42, knownIds: ['SM-first'] },
    ]);
  });

  it('a channel that cannot check costs no attempt note', async () => {
    t = tempDb();
    const channel = new FakeChannel('console');
    enqueueOutbound(t.db, 'console:local', 'in:1', [{ type: 'text', text: 'hi' }], 1);
    const d = new Deliverer(
      sqliteQueueStore(t.db),
      new Map([['console', channel]]),
      memoryLog().log,
      () => 42,
      retryNow,
    );
    d.kick('console:local');
    await d.idle();
    expect(rowsForKey(t.db, 'in:1').map((r) => [r.status, r.attemptAt])).toEqual([['sent', undefined]]);
  });
});

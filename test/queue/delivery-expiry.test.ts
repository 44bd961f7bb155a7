// Transient send failures are retried for a time, not a number of tries; the next try's time is
// stored, so a restart resumes the backoff; a chunk whose failures outlast the retry time expires
// and the chat gets one notice, which itself waits for the channel however long it takes.
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatKey, SendResult } from '../../src/core/types.js';
import { Deliverer, type DeliveryOptions, expiryNotice } from '../../src/queue/delivery.js';
import { enqueueOutbound, expiredStats, rowsForKey } from '../../src/store/sqlite/outbox.js';
import { sqliteQueueStore } from '../../src/store/sqlite/queue-sqlite.js';
import { tempDb } from '../store/helpers.js';
import { FakeChannel, memoryLog } from './helpers.js';

let t: ReturnType<typeof tempDb>;
let live: Deliverer[] = [];
afterEach(() => {
  for (const d of live) d.stop();
  live = [];
  t?.cleanup();
});

const CHAT: ChatKey = 'twilio:+15551234567';
const down: SendResult = { ok: false, error: 'Twilio server error 503', retryable: true, code: '20503' };

function deliverer(channel: FakeChannel, clock: { now: number }, opts: Partial<DeliveryOptions> = {}) {
  const d = new Deliverer(
    sqliteQueueStore(t.db),
    new Map([['twilio', channel]]),
    memoryLog().log,
    () => clock.now,
    {
      retryForMs: 60_000,
      backoffMs: () => 0,
      waitMs: 0,
      ...opts,
    },
  );
  live.push(d);
  return d;
}

describe('retrying for a time', () => {
  it('stores when the next try is due, honouring Retry-After over a shorter backoff', async () => {
    t = tempDb();
    const clock = { now: 1000 };
    const channel = new FakeChannel('twilio');
    channel.failNext.push({ ...down, retryAfterMs: 7000 });
    enqueueOutbound(t.db, CHAT, 'in:1', [{ type: 'text', text: 'hi' }], 1000);
    const d = deliverer(channel, clock, { backoffMs: () => 2000 });
    d.kick(CHAT);
    await until(() => rowsForKey(t.db, 'in:1')[0]?.tries === 1);
    expect(rowsForKey(t.db, 'in:1')[0]).toMatchObject({ status: 'pending', nextAt: 8000 });
    d.stop();
    await d.idle();
    expect(channel.sent).toEqual([]);
  });

  it('a restart resumes a chunk that failed many times, at its stored next try', async () => {
    t = tempDb();
    const clock = { now: 1000 };
    const channel = new FakeChannel('twilio');
    channel.failNext = Array(8).fill(down);
    enqueueOutbound(t.db, CHAT, 'in:1', [{ type: 'text', text: 'hi' }], 1000);
    // Seven quick retries, then a 10 s wait after the eighth failure: the relay stops in that wait
    // (a zero wait there would let this process send before it is stopped).
    const first = deliverer(channel, clock, { backoffMs: (n) => (n >= 8 ? 10_000 : 0) });
    first.kick(CHAT);
    await until(() => rowsForKey(t.db, 'in:1')[0]?.tries === 8);
    first.stop();
    await first.idle();
    expect(rowsForKey(t.db, 'in:1')[0]).toMatchObject({ status: 'pending', nextAt: 11_000 });
    // The next process starts at that time and fails once more: its next try is 50 s on.
    clock.now = 11_000;
    channel.failNext.push(down);
    const slow = deliverer(channel, clock, { backoffMs: () => 50_000 });
    slow.kick(CHAT);
    await until(() => rowsForKey(t.db, 'in:1')[0]?.tries === 9);
    slow.stop();
    await slow.idle();
    expect(rowsForKey(t.db, 'in:1')[0]).toMatchObject({ status: 'pending', nextAt: 61_000 });

    // The next process starts after that time: it sends at once, exactly once.
    clock.now = 61_000;
    const next = deliverer(channel, clock);
    next.kick(CHAT);
    await next.idle();
    expect(channel.texts()).toEqual(['hi']);
    expect(rowsForKey(t.db, 'in:1')[0]).toMatchObject({ status: 'sent', tries: 10 });
  });

  it('a stop while the failure is being written ends the back-off that would follow it', async () => {
    t = tempDb();
    const clock = { now: 1000 };
    const channel = new FakeChannel('twilio');
    channel.failNext = [down];
    enqueueOutbound(t.db, CHAT, 'in:1', [{ type: 'text', text: 'hi' }], 1000);
    const d = deliverer(channel, clock, { backoffMs: () => 600_000 });
    // Stopped during the send: the loop then writes the failure and would wait out the back-off.
    const send = channel.send.bind(channel);
    channel.send = async (chatId, item) => {
      d.stop();
      return send(chatId, item);
    };
    d.kick(CHAT);
    const idle = await Promise.race([
      d.idle().then(() => 'idle'),
      new Promise((r) => setTimeout(() => r('still waiting after 10 s'), 10_000).unref()),
    ]);
    expect(idle).toBe('idle');
    // The back-off as stored (capped by the retry time, 60 s here): the next start resumes it.
    expect(rowsForKey(t.db, 'in:1')[0]).toMatchObject({ status: 'pending', tries: 1, nextAt: 61_000 });
  });

  it('a send that works again on the channel wakes the other chats out of their backoff', async () => {
    t = tempDb();
    const clock = { now: 1000 };
    const channel = new FakeChannel('twilio');
    const other: ChatKey = 'twilio:+15557654321';
    channel.failNext = [down, down];
    enqueueOutbound(t.db, other, 'in:0', [{ type: 'text', text: 'first' }], 1000);
    enqueueOutbound(t.db, CHAT, 'in:1', [{ type: 'text', text: 'second' }], 1000);
    // The first chat's backoff is short, the second's a day: only the wake can end it.
    let n = 0;
    const d = deliverer(channel, clock, { backoffMs: () => (++n === 1 ? 20 : 86_400_000) });
    d.kick(other);
    d.kick(CHAT);
    await d.idle();
    expect(channel.texts().toSorted()).toEqual(['first', 'second']);
  });
});

describe('expiry', () => {
  it('expires every chunk past the retry time and tells the chat once; the notice outlasts the outage', async () => {
    t = tempDb();
    const clock = { now: 1000 };
    const channel = new FakeChannel('twilio');
    enqueueOutbound(
      t.db,
      CHAT,
      'in:1',
      [
        { type: 'text', text: 'part 1' },
        { type: 'text', text: 'part 2' },
      ],
      1000,
    );
    enqueueOutbound(t.db, CHAT, 'in:2', [{ type: 'url', url: 'https://example.com/a.png' }], 1000);
    // The provider is down for 3 minutes of outbox time; every failed try moves the clock 10 s on.
    let outageLeft = 18;
    const send = channel.send.bind(channel);
    channel.send = async (chatId, item) => {
      if (outageLeft > 0) {
        outageLeft--;
        clock.now += 10_000;
        return down;
      }
      return send(chatId, item);
    };
    const d = deliverer(channel, clock);
    d.kick(CHAT);
    await d.idle();
    const notice = expiryNotice(60_000);
    expect(notice).toBe(
      '(Some replies could not be delivered: sending kept failing for 1 min. Ask again if you still need them.)',
    );
    // One notice for three expired chunks, sent once the provider answered again.
    expect(channel.texts()).toEqual([notice]);
    const rows = [...rowsForKey(t.db, 'in:1'), ...rowsForKey(t.db, 'in:2')];
    expect(rows.map((r) => r.status)).toEqual(['failed', 'failed', 'failed']);
    expect(expiredStats(t.db)).toEqual({ count: 3, lastAt: expect.any(Number) });
  });

  it('a permanent error is not retried and not reported as expired', async () => {
    t = tempDb();
    const clock = { now: 1000 };
    const channel = new FakeChannel('twilio');
    channel.failNext = [{ ok: false, error: 'invalid recipient number', retryable: false, code: '21211' }];
    enqueueOutbound(t.db, CHAT, 'in:1', [{ type: 'text', text: 'hi' }], 1000);
    const d = deliverer(channel, clock);
    d.kick(CHAT);
    await d.idle();
    expect(channel.sent).toEqual([]);
    expect(rowsForKey(t.db, 'in:1')[0]).toMatchObject({ status: 'failed', tries: 1 });
    expect(expiredStats(t.db)).toEqual({ count: 0 });
  });
});

async function until(check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 2));
  }
}

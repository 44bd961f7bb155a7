import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { SingleConsumer } from '../../../src/channels/single.js';
import type { InboundMessage } from '../../../src/core/types.js';
import type { Fence } from '../../../src/store/ownership.js';
import { waitFor } from '../../e2e/helpers.js';
import { type FakeTwilio, type ListedMessage, sid, startFakeTwilio } from './helpers/fake-twilio.js';
import { createInbox, type Harness, startChannel, tempPaths, twilioConfig } from './helpers/harness.js';

let fake: FakeTwilio;
let h: Harness | undefined;

afterEach(async () => {
  await h?.stop();
  h = undefined;
  await fake?.close();
});

const minutesAgo = (n: number) => new Date(Math.floor((Date.now() - n * 60_000) / 1000) * 1000);

function inbound(body: string, at: Date, from = '+15551234567') {
  const m: ListedMessage = { sid: sid(), from, to: '+15550000000', body, direction: 'inbound', dateSent: at };
  fake.inbox.push(m);
  return m;
}

async function start(opts: Parameters<typeof startChannel>[2] = {}, section: Record<string, unknown> = {}) {
  const seen: InboundMessage[] = [];
  h = await startChannel(
    // A long interval: the test drives polls itself with pollOnce().
    twilioConfig({ apiBaseUrl: fake.url, mode: 'poll', pollSeconds: 3600, ...section }),
    (db) => {
      const inbox = createInbox(db);
      return async (msg) => {
        const o = await inbox.handler(msg);
        if (o.type === 'stored') seen.push(msg);
        return o;
      };
    },
    opts,
  );
  return { h, seen };
}

describe('twilio poll mode', () => {
  it('records the backlog on the first poll without answering it, then picks up new messages', async () => {
    fake = await startFakeTwilio();
    inbound('old one', minutesAgo(30));
    inbound('old two', minutesAgo(20));
    const { h, seen } = await start();
    // start() ran the first poll.
    expect(seen).toEqual([]);
    expect(h.capture.text()).toContain('first poll recorded the existing messages');
    inbound('new', minutesAgo(0));
    fake.inbox.push({
      sid: sid(),
      from: '+15550000000',
      to: '+15551234567',
      body: 'ours',
      direction: 'outbound-api',
      dateSent: minutesAgo(0),
    });
    expect(await h.channel.pollOnce()).toEqual({ type: 'polled', processed: 1, stoppedOnError: false });
    expect(seen.map((m) => [m.text, m.chatId])).toEqual([['new', '+15551234567']]);
    expect(await h.channel.pollOnce()).toEqual({ type: 'polled', processed: 0, stoppedOnError: false });
  });

  it('answers only messages to our number, or without one to our Messaging Service', async () => {
    const SERVICE = `MG${'c'.repeat(32)}`;
    const to = (body: string, number: string, service?: string) =>
      fake.inbox.push({
        sid: sid(),
        from: '+15551234567',
        to: number,
        body,
        direction: 'inbound',
        dateSent: minutesAgo(0),
        ...(service ? { messagingServiceSid: service } : {}),
      });
    fake = await startFakeTwilio();
    const byNumber = await start();
    to('to our number', '+15550000000');
    to('to another number of the account', '+15559999999', SERVICE);
    await byNumber.h.channel.pollOnce();
    expect(byNumber.seen.map((m) => m.text)).toEqual(['to our number']);
    await byNumber.h.stop();

    await fake.close();
    fake = await startFakeTwilio();
    const byService = await start({}, { from: undefined, messagingServiceSid: SERVICE });
    to('to a number of our service', '+15558888888', SERVICE);
    to('to a number of another app', '+15557777777');
    await byService.h.channel.pollOnce();
    expect(byService.seen.map((m) => m.text)).toEqual(['to a number of our service']);
  });

  it('keeps its cursor across a restart', async () => {
    fake = await startFakeTwilio();
    inbound('backlog', minutesAgo(10));
    const paths = tempPaths();
    const first = await start({ paths });
    await first.h.stop();
    inbound('while down', minutesAgo(1));
    const second = await start({ paths, db: first.h.db });
    // The restart's first poll is not a "first poll": the message that arrived while down is answered.
    expect(second.seen.map((m) => m.text)).toEqual(['while down']);
  });

  it('downloads polled media with Basic auth and applies the allow-list', async () => {
    fake = await startFakeTwilio();
    const { h, seen } = await start();
    const m = inbound('', minutesAgo(0));
    m.media = [{ sid: 'ME9', contentType: 'image/png' }];
    fake.media.set('ME9', { type: 'bytes', data: Buffer.from('IMG'), contentType: 'image/png' });
    inbound('stranger', minutesAgo(0), '+15559876543');
    await h.channel.pollOnce();
    expect(seen).toHaveLength(1);
    // Stored with the link; the queue has the channel download it before the run.
    expect(fake.mediaRequests).toEqual([]);
    const got = await h.channel.fetchMedia!(seen[0]!.chatId, seen[0]!.remoteMedia ?? []);
    expect(readFileSync(got.media[0]!.path, 'utf8')).toBe('IMG');
    expect(fake.mediaRequests.map((r) => r.authorized)).toEqual([true]);
  });
});

describe('twilio poll mode under the poll lease (several relays on one store)', () => {
  it('polls only while this process holds the lease; shows the holder otherwise', async () => {
    fake = await startFakeTwilio();
    inbound('backlog', minutesAgo(30));
    let on: { gained(fence: Fence): void; lost(): void } | undefined;
    const released: string[] = [];
    const single: SingleConsumer = {
      lead: (o) => {
        on = o;
        return async () => void released.push('released');
      },
      heldBy: () => 'held by host-b pid 7',
      stillHolds: async () => true,
    };
    const { h, seen } = await start({ single });
    // Another process polls: nothing listed here, the channel says who polls.
    expect(h.channel.status()).toMatchObject({ type: 'elsewhere' });
    expect(h.capture.text()).not.toContain('first poll recorded');
    const fence = { chat: 'channel:twilio', holder: 'me', epoch: 1 } as Fence;
    on?.gained(fence);
    expect(await waitFor(() => h.capture.text().includes('first poll recorded'))).toBe(true);
    expect(await waitFor(() => h.channel.status().type === 'connected')).toBe(true);
    on?.lost();
    expect(await waitFor(() => h.channel.status().type === 'elsewhere')).toBe(true);
    expect(h.channel.status()).toMatchObject({ type: 'elsewhere', holder: 'held by host-b pid 7' });
    // Taken back: the poll runs again at once and picks up what came meanwhile, once.
    inbound('while away', minutesAgo(0));
    on?.gained({ ...fence, epoch: 3 });
    expect(await waitFor(() => seen.length > 0)).toBe(true);
    expect(seen.map((m) => m.text)).toEqual(['while away']);
    await h.stop();
    expect(released).toEqual(['released']);
  });
});

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ACCOUNT, type FakeTwilio, startFakeTwilio } from './helpers/fake-twilio.js';
import {
  createInbox,
  type Harness,
  smsParams,
  startChannel,
  twilioConfig,
  twilioPost,
} from './helpers/harness.js';

let fake: FakeTwilio;
let h: Harness | undefined;

afterEach(async () => {
  await h?.stop();
  h = undefined;
  await fake?.close();
});

async function start(section: Record<string, unknown> = {}) {
  fake = await startFakeTwilio();
  h = await startChannel(twilioConfig({ apiBaseUrl: fake.url, ...section }), (db) => createInbox(db).handler);
  return h;
}

const noWhitespace = (s: string) => s.replace(/\s+/g, '');

describe('twilio send: text', () => {
  it('sends through the SDK to apiBaseUrl from the configured number', async () => {
    const { channel } = await start();
    const r = await channel.send('+15551234567', { type: 'text', text: 'hi there' });
    expect(fake.created).toEqual([
      expect.objectContaining({ to: '+15551234567', from: '+15550000000', body: 'hi there' }),
    ]);
    expect(r).toEqual({ ok: true, providerId: fake.created[0]?.sid });
    expect(await channel.deliveryStatus(fake.created[0]!.sid)).toMatchObject({
      status: 'queued',
      chatId: '+15551234567',
    });
  });

  it('replies to a WhatsApp chat from the whatsapp: form of the same number', async () => {
    const { channel } = await start();
    await channel.send('whatsapp:+15551234567', { type: 'text', text: 'hi' });
    expect(fake.created[0]).toMatchObject({ to: 'whatsapp:+15551234567', from: 'whatsapp:+15550000000' });
  });

  it('uses the messaging service instead of a From number when configured', async () => {
    const { channel } = await start({ from: undefined, messagingServiceSid: `MG${'c'.repeat(32)}` });
    await channel.send('+15551234567', { type: 'text', text: 'hi' });
    expect(fake.created[0]).toMatchObject({ messagingServiceSid: `MG${'c'.repeat(32)}`, from: undefined });
  });

  it('splits 10 000 characters with emoji and a code fence into ordered bodies of at most 1 600', async () => {
    const { channel } = await start();
    expect(channel.textLimit).toBe(1600);
    const para = (i: number) => `Paragraph ${i} 😀 ${'word 👍🏽 '.repeat(20)}done.`;
    const text = [...Array.from({ length: 45 }, (_, i) => para(i)), '```\nconst x = 1;\n```'].join('\n\n');
    expect(text.length).toBeGreaterThan(10_000);
    const r = await channel.send('+15551234567', { type: 'text', text });
    expect(r.ok).toBe(true);
    const bodies = fake.created.map((m) => m.body ?? '');
    expect(bodies.length).toBeGreaterThan(6);
    for (const b of bodies) {
      expect(b.length).toBeLessThanOrEqual(1600);
      expect(b).not.toMatch(/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/);
    }
    expect(noWhitespace(bodies.join(''))).toBe(noWhitespace(text));
    expect(bodies[0]?.startsWith('Paragraph 0')).toBe(true);
  });

  it('refuses a recipient that is not a phone number without calling Twilio', async () => {
    const { channel } = await start();
    const r = await channel.send('--help', { type: 'text', text: 'hi' });
    expect(r).toMatchObject({ ok: false, retryable: false });
    expect(fake.attempts).toEqual([]);
  });
});

describe('twilio send: errors by code', () => {
  it.each([
    ['20429', { status: 429, code: 20429 }],
    ['a 500', { status: 500, code: 20500 }],
    ['a 503', { status: 503, code: 20503 }],
  ])('retries %s once and sends the message exactly once', async (_n, failure) => {
    const { channel } = await start();
    fake.failNext(failure);
    const r = await channel.send('+15551234567', { type: 'text', text: 'once' });
    expect(r.ok).toBe(true);
    expect(fake.attempts).toHaveLength(2);
    expect(fake.created.map((m) => m.body)).toEqual(['once']);
  });

  it('tries at most once more per send, then hands a retryable failure back', async () => {
    const { channel, capture } = await start();
    fake.failNext({ status: 500, code: 20500 }, { status: 500, code: 20500 }, { status: 500, code: 20500 });
    const r = await channel.send('+15551234567', { type: 'text', text: 'x' });
    expect(r).toMatchObject({ ok: false, retryable: true, code: '20500' });
    expect(fake.attempts).toHaveLength(2);
    expect(capture.text()).toContain('"code":"20500"');
  });

  it('honours Retry-After: no quick second try, and the wait is handed to the outbox', async () => {
    const { channel } = await start();
    fake.failNext({ status: 429, code: 20429, retryAfter: '30' }, { status: 429, code: 20429 });
    const r = await channel.send('+15551234567', { type: 'text', text: 'x' });
    expect(r).toMatchObject({ ok: false, retryable: true, code: '20429' });
    expect(fake.attempts).toHaveLength(1);
    const wait = r.ok ? 0 : (r.retryAfterMs ?? 0);
    expect(wait).toBeGreaterThan(25_000);
    expect(wait).toBeLessThanOrEqual(30_000);
  });

  it('sends failing for the whole channel mark it degraded until one goes through', async () => {
    const { channel } = await start();
    expect(channel.status()).toMatchObject({ type: 'connected' });
    // A refused recipient is about that chat, not the channel.
    fake.failNext({ status: 400, code: 21211 });
    await channel.send('+15551234567', { type: 'text', text: 'x' });
    expect(channel.status()).toMatchObject({ type: 'connected' });
    fake.failNext({ status: 500, code: 20500 }, { status: 500, code: 20500 });
    await channel.send('+15551234567', { type: 'text', text: 'x' });
    expect(channel.status()).toMatchObject({ type: 'degraded', retries: 1 });
    fake.failNext({ status: 401, code: 20003 });
    await channel.send('+15551234567', { type: 'text', text: 'x' });
    const s = channel.status();
    expect(s).toMatchObject({ type: 'degraded', retries: 2 });
    expect(s.type === 'degraded' && s.lastError).toMatch(/^sending failed: /);
    await channel.send('+15551234567', { type: 'text', text: 'x' });
    expect(channel.status()).toMatchObject({ type: 'connected' });
  });

  it.each([
    ['21610', 400],
    ['21211', 400],
    ['63016', 400],
    ['21614', 400],
  ])('does not retry %s and reports the code', async (code, status) => {
    const { channel, capture } = await start();
    fake.failNext({ status, code: Number(code) });
    const r = await channel.send('+15551234567', { type: 'text', text: 'x' });
    expect(r).toMatchObject({ ok: false, retryable: false, code });
    expect(fake.attempts).toHaveLength(1);
    expect(capture.text()).toContain(`"code":"${code}"`);
    expect(capture.text()).not.toContain('+15551234567');
  });

  it('after 21610 or 63016 stops free-form sends to that chat until the user writes again', async () => {
    const harness = await start();
    fake.failNext({ status: 400, code: 63016 });
    await harness.channel.send('whatsapp:+15551234567', { type: 'text', text: 'first' });
    const blocked = await harness.channel.send('whatsapp:+15551234567', { type: 'text', text: 'second' });
    expect(blocked).toMatchObject({ ok: false, retryable: false, code: '63016' });
    expect(fake.attempts).toHaveLength(1);
    // Another chat is unaffected.
    expect((await harness.channel.send('+15551234567', { type: 'text', text: 'sms' })).ok).toBe(true);
    // The user writes: the window is open again.
    const inbound = await twilioPost(
      `${harness.base}/twilio/inbound`,
      smsParams({ From: 'whatsapp:+15551234567' }),
    );
    expect(inbound.status).toBe(200);
    expect((await harness.channel.send('whatsapp:+15551234567', { type: 'text', text: 'third' })).ok).toBe(
      true,
    );
  });

  it('a retried long text does not send its first parts again', async () => {
    const { channel } = await start();
    const text = `${'a'.repeat(1500)}\n\n${'b'.repeat(1500)}\n\n${'c'.repeat(100)}`;
    // Part one goes out, part two fails twice (one try), the outbox tries the item again.
    fake.failNext(null, { status: 500, code: 20500 }, { status: 500, code: 20500 });
    expect(await channel.send('+15551234567', { type: 'text', text })).toMatchObject({
      ok: false,
      retryable: true,
    });
    expect(fake.created).toHaveLength(1);
    const second = await channel.send('+15551234567', { type: 'text', text });
    expect(second.ok).toBe(true);
    expect(fake.created.map((m) => m.body?.[0])).toEqual(['a', 'b', 'c']);
  });

  it('fails cleanly without credentials', async () => {
    const { channel } = await start({ authToken: undefined });
    const r = await channel.send('+15551234567', { type: 'text', text: 'x' });
    expect(r).toMatchObject({ ok: false, retryable: false });
    expect(fake.attempts).toEqual([]);
  });
});

describe('twilio send: media', () => {
  it('serves a local file under an unguessable URL below mediaBaseUrl', async () => {
    const { channel, paths, base } = await start({
      mediaBaseUrl: 'https://public.example/twilio/inbound/media',
    });
    const file = join(paths.home, 'chart.png');
    writeFileSync(file, 'PNG-BYTES');
    const r = await channel.send('+15551234567', {
      type: 'file',
      path: file,
      mimeType: 'image/png',
      fileName: 'chart.png',
      sizeBytes: 9,
      caption: 'the chart',
    });
    expect(r.ok).toBe(true);
    const [url] = fake.created[0]?.mediaUrl ?? [];
    expect(url).toMatch(/^https:\/\/public\.example\/twilio\/inbound\/media\/[A-Za-z0-9_-]{43}\.png$/);
    expect(fake.created[0]?.body).toBe('the chart');
    expect(url).not.toContain('chart');
    // What the proxy would forward to: the same name under the local media path.
    const local = `${base}/twilio/inbound/media/${url!.split('/').pop()}`;
    const got = await fetch(local);
    expect(got.status).toBe(200);
    expect(got.headers.get('content-type')).toBe('image/png');
    expect(await got.text()).toBe('PNG-BYTES');
    // The staged copy is what is served: changing the original afterwards changes nothing.
    writeFileSync(file, 'CHANGED');
    expect(await (await fetch(local)).text()).toBe('PNG-BYTES');
  });

  it.each([
    ['an unknown name', `${'A'.repeat(43)}.png`],
    ['a traversal', '..%2f..%2f..%2fetc%2fpasswd'],
    ['an encoded dot path', '%2e%2e%2fagentwire.db'],
  ])('answers 404 for %s', async (_n, name) => {
    const { base } = await start({ mediaBaseUrl: 'https://public.example/m' });
    const res = await fetch(`${base}/twilio/inbound/media/${name}`);
    expect(res.status).toBe(404);
  });

  it('derives the media URL from publicUrl', async () => {
    const { channel, paths } = await start({ webhook: { publicUrl: 'https://pub.example/hook?k=1' } });
    const file = join(paths.home, 'a.pdf');
    writeFileSync(file, '%PDF');
    await channel.send('+15551234567', {
      type: 'file',
      path: file,
      mimeType: 'application/pdf',
      fileName: 'a.pdf',
      sizeBytes: 4,
    });
    expect(fake.created[0]?.mediaUrl[0]).toMatch(
      /^https:\/\/pub\.example\/hook\/media\/[A-Za-z0-9_-]{43}\.pdf$/,
    );
  });

  it('refuses a file when no public URL is configured, without calling Twilio', async () => {
    const { channel, paths } = await start();
    const file = join(paths.home, 'a.png');
    writeFileSync(file, 'x');
    const r = await channel.send('+15551234567', {
      type: 'file',
      path: file,
      mimeType: 'image/png',
      fileName: 'a',
      sizeBytes: 1,
    });
    expect(r).toMatchObject({ ok: false, retryable: false });
    expect(r.ok === false && r.error).toContain('publicUrl');
    expect(fake.attempts).toEqual([]);
  });

  it('passes an https URL through and refuses plain http', async () => {
    const { channel } = await start();
    expect((await channel.send('+15551234567', { type: 'url', url: 'https://cdn.example/a.jpg' })).ok).toBe(
      true,
    );
    expect(fake.created[0]?.mediaUrl).toEqual(['https://cdn.example/a.jpg']);
    const r = await channel.send('+15551234567', { type: 'url', url: 'http://cdn.example/a.jpg' });
    expect(r).toMatchObject({ ok: false, retryable: false });
    expect(fake.attempts).toHaveLength(1);
  });

  it('uses the account credentials it was given (the fake rejects others)', async () => {
    const { channel } = await start({ accountSid: ACCOUNT, authToken: 'wrong-token-123456' });
    const r = await channel.send('+15551234567', { type: 'text', text: 'x' });
    expect(r).toMatchObject({ ok: false, retryable: false, code: '20003' });
  });
});

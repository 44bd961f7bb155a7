import { afterEach, describe, expect, it } from 'vitest';
import { sendTwilioDirect } from '../../../src/channels/twilio/index.js';
import { createRestClient } from '../../../src/channels/twilio/rest.js';
import { ACCOUNT, type FakeTwilio, startFakeTwilio, TOKEN } from './helpers/fake-twilio.js';
import { captureLog, twilioConfig } from './helpers/harness.js';

let fake: FakeTwilio;
afterEach(async () => {
  await fake?.close();
});

describe('sendTwilioDirect (agentwire send without a relay)', () => {
  it('sends a long message as ordered chunks and returns the provider ids', async () => {
    fake = await startFakeTwilio();
    const { log } = captureLog();
    const text = `${'a'.repeat(1500)}\n\n${'b'.repeat(200)}`;
    const r = await sendTwilioDirect({
      config: twilioConfig({ apiBaseUrl: fake.url }),
      log,
      env: {},
      to: '+15551234567',
      text,
      mediaUrls: ['https://cdn.example/x.png'],
    });
    expect(r.ok).toBe(true);
    expect(fake.created.map((m) => [m.body?.slice(0, 1), m.mediaUrl])).toEqual([
      ['a', []],
      ['b', []],
      [undefined, ['https://cdn.example/x.png']],
    ]);
    expect(r.ok && r.providerIds).toEqual(fake.created.map((m) => m.sid));
  });

  it('reports a permanent failure with its code and stops', async () => {
    fake = await startFakeTwilio();
    fake.failNext({ status: 400, code: 21211 });
    const { log } = captureLog();
    const r = await sendTwilioDirect({
      config: twilioConfig({ apiBaseUrl: fake.url }),
      log,
      env: {},
      to: '+15551234567',
      text: 'x',
      mediaUrls: ['https://cdn.example/x.png'],
    });
    expect(r).toMatchObject({ ok: false, code: '21211', retryable: false, providerIds: [] });
    expect(fake.attempts).toHaveLength(1);
  });

  it('explains missing credentials without a network call', async () => {
    fake = await startFakeTwilio();
    const { log } = captureLog();
    const r = await sendTwilioDirect({
      config: twilioConfig({ apiBaseUrl: fake.url, authToken: undefined }),
      log,
      env: {},
      to: '+15551234567',
      text: 'x',
    });
    expect(r).toMatchObject({ ok: false, retryable: false });
    expect(r.ok === false && r.error).toContain('credentials');
    expect(fake.attempts).toEqual([]);
  });
});

describe('createRestClient', () => {
  it('sends every request to apiBaseUrl, even with TWILIO_EDGE set', async () => {
    fake = await startFakeTwilio();
    const before = process.env.TWILIO_EDGE;
    process.env.TWILIO_EDGE = 'sydney';
    try {
      const client = createRestClient({ accountSid: ACCOUNT, username: ACCOUNT, password: TOKEN }, fake.url);
      const m = await client.messages.create({ to: '+15551234567', from: '+15550000000', body: 'edge' });
      expect(m.sid).toBe(fake.created[0]?.sid);
    } finally {
      if (before === undefined) delete process.env.TWILIO_EDGE;
      else process.env.TWILIO_EDGE = before;
    }
  });
});

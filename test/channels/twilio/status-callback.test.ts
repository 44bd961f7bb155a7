import { afterEach, describe, expect, it } from 'vitest';
import { type FakeTwilio, startFakeTwilio } from './helpers/fake-twilio.js';
import { createInbox, type Harness, startChannel, twilioConfig, twilioPost } from './helpers/harness.js';

const PUBLIC = 'https://relay.example/twilio/inbound';
let fake: FakeTwilio;
let h: Harness | undefined;

afterEach(async () => {
  await h?.stop();
  h = undefined;
  await fake?.close();
});

async function start(section: Record<string, unknown> = {}) {
  fake = await startFakeTwilio();
  h = await startChannel(
    twilioConfig({ apiBaseUrl: fake.url, statusCallbacks: true, webhook: { publicUrl: PUBLIC }, ...section }),
    (db) => createInbox(db).handler,
  );
  return h;
}

const callback = (base: string, sid: string, status: string, extra: Record<string, string> = {}) =>
  twilioPost(
    `${base}/twilio/inbound/status`,
    { MessageSid: sid, MessageStatus: status, ...extra },
    {
      signedUrl: `${PUBLIC}/status`,
    },
  );

describe('twilio status callbacks', () => {
  it('asks for callbacks at the public status URL and records delivery monotonically', async () => {
    const { channel, base } = await start();
    const r = await channel.send('+15551234567', { type: 'text', text: 'hi' });
    expect(fake.created[0]?.statusCallback).toBe(`${PUBLIC}/status`);
    const sid = r.ok ? r.providerId! : '';
    expect((await callback(base, sid, 'sent')).status).toBe(204);
    expect((await callback(base, sid, 'delivered')).status).toBe(204);
    // A late `sent` arrives after `delivered`: the status does not go back.
    expect((await callback(base, sid, 'sent')).status).toBe(204);
    expect(await channel.deliveryStatus(sid)).toMatchObject({ status: 'delivered' });
  });

  it('records a failure with its error code and logs the code', async () => {
    const { channel, base, capture } = await start();
    const r = await channel.send('+15551234567', { type: 'text', text: 'hi' });
    const sid = r.ok ? r.providerId! : '';
    await callback(base, sid, 'undelivered', { ErrorCode: '30007' });
    expect(await channel.deliveryStatus(sid)).toMatchObject({ status: 'undelivered', errorCode: '30007' });
    expect(capture.text()).toContain('"code":"30007"');
  });

  it('ignores a forged callback (403, status unchanged)', async () => {
    const { channel, base } = await start();
    const r = await channel.send('+15551234567', { type: 'text', text: 'hi' });
    const sid = r.ok ? r.providerId! : '';
    const forged = await twilioPost(
      `${base}/twilio/inbound/status`,
      { MessageSid: sid, MessageStatus: 'failed' },
      { signedUrl: `${base}/twilio/inbound/status` },
    );
    expect(forged.status).toBe(403);
    expect(await channel.deliveryStatus(sid)).toMatchObject({ status: 'queued' });
  });

  it('requests no callbacks when they are off', async () => {
    const { channel } = await start({ statusCallbacks: false });
    await channel.send('+15551234567', { type: 'text', text: 'hi' });
    expect(fake.created[0]?.statusCallback).toBeUndefined();
  });
});

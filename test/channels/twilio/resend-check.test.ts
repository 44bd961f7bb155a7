// A chunk whose send began before the relay died: before sending it again, the channel asks Twilio
// whether it already took it (an outbound message to the same number, same body, created since).
import { afterEach, describe, expect, it } from 'vitest';
import { findAccepted, smartEncoded } from '../../../src/channels/twilio/accepted.js';
import type { TwilioClient } from '../../../src/channels/twilio/rest.js';
import { memoryLog } from '../../queue/helpers.js';
import { type FakeTwilio, startFakeTwilio } from './helpers/fake-twilio.js';
import { createInbox, type Harness, startChannel, twilioConfig } from './helpers/harness.js';

let fake: FakeTwilio;
let h: Harness | undefined;

afterEach(async () => {
  await h?.stop();
  h = undefined;
  await fake?.close();
});

async function start() {
  fake = await startFakeTwilio();
  h = await startChannel(twilioConfig({ apiBaseUrl: fake.url }), (db) => createInbox(db).handler);
  return h.channel;
}

const TO = '+15551234567';

describe('smartEncoded', () => {
  it.each([
    ['it\u2019s \u201cdone\u201d \u2014 mostly\u2026', 'it\'s "done" - mostly...'],
    ['a\u00a0b\u200bc', 'a bc'],
    ['plain text stays', 'plain text stays'],
    ['emoji 🚀 and ümlauts stay', 'emoji 🚀 and ümlauts stay'],
  ])('%s', (input, out) => expect(smartEncoded(input)).toBe(out));

  it('a body Twilio rewrote still counts as the one we sent', async () => {
    const client = {
      messages: {
        list: async () => [
          {
            sid: 'SMx',
            direction: 'outbound-api',
            body: 'it\'s done - see "log"...',
            dateCreated: new Date(),
          },
        ],
      },
    } as unknown as TwilioClient;
    const sent = { to: TO, body: 'it\u2019s done \u2013 see \u201clog\u201d\u2026' };
    expect(await findAccepted(client, sent, Date.now(), memoryLog().log)).toBe('SMx');
    expect(
      await findAccepted(client, { to: TO, body: 'its done' }, Date.now(), memoryLog().log),
    ).toBeUndefined();
  });
});

describe('twilio: resending a chunk whose first send had begun', () => {
  it('takes the message Twilio already created instead of sending it again', async () => {
    const channel = await start();
    const attemptedAt = Date.now();
    const first = await channel.send(TO, { type: 'text', text: 'the deploy log says…' });
    expect(first.ok).toBe(true);
    const again = await channel.send(TO, { type: 'text', text: 'the deploy log says…' }, { attemptedAt });
    expect(fake.created).toHaveLength(1);
    expect(again).toEqual({ ok: true, providerId: fake.created[0]?.sid });
  });

  it.each([
    ['another body', 'something else', TO, 0],
    ['another recipient', 'the deploy log says…', '+15557654321', 0],
    ['a message from before the attempt', 'the deploy log says…', TO, 10 * 60_000],
  ])('sends when Twilio holds only %s', async (_name, body, to, ageMs) => {
    const channel = await start();
    await channel.send(to, { type: 'text', text: body });
    const attemptedAt = Date.now() + ageMs;
    const r = await channel.send(TO, { type: 'text', text: 'the deploy log says…' }, { attemptedAt });
    expect(r.ok).toBe(true);
    expect(fake.created).toHaveLength(2);
  });

  it('a message the outbox already holds is never taken for the lost one (two captionless photos)', async () => {
    const channel = await start();
    const photo = { type: 'url', url: 'https://example.com/a.png' } as const;
    const attemptedAt = Date.now();
    const first = await channel.send(TO, photo);
    expect(first.ok).toBe(true);
    const firstSid = first.ok ? first.providerId : undefined;
    // Without what the outbox knows, the first photo looks exactly like the second one's lost send.
    const blind = await channel.send(TO, photo, { attemptedAt });
    expect(blind).toEqual({ ok: true, providerId: firstSid });
    expect(fake.created).toHaveLength(1);
    const told = await channel.send(TO, photo, { attemptedAt, knownIds: [firstSid as string] });
    expect(fake.created).toHaveLength(2);
    expect(told).toEqual({ ok: true, providerId: fake.created[1]?.sid });
  });

  it('the parts of one long text sent just now are not taken for each other', async () => {
    fake = await startFakeTwilio();
    h = await startChannel(
      twilioConfig({ apiBaseUrl: fake.url, chunkChars: 100 }),
      (db) => createInbox(db).handler,
    );
    const part = 'x'.repeat(100);
    const r = await h.channel.send(TO, { type: 'text', text: part + part }, { attemptedAt: Date.now() });
    expect(r.ok).toBe(true);
    expect(fake.created.map((m) => m.body)).toEqual([part, part]);
  });

  it('without a begun attempt it never asks (the first send of a chunk)', async () => {
    const channel = await start();
    await channel.send(TO, { type: 'text', text: 'same' });
    await channel.send(TO, { type: 'text', text: 'same' });
    expect(fake.created.map((m) => m.body)).toEqual(['same', 'same']);
  });

  it('a lookup Twilio refuses answers "not found" (so the chunk is sent) and says so in the log', async () => {
    const client = {
      messages: { list: async () => Promise.reject(new Error('503 Service Unavailable')) },
    } as unknown as TwilioClient;
    const { log, lines } = memoryLog();
    expect(await findAccepted(client, { to: TO, body: 'x' }, Date.now(), log)).toBeUndefined();
    expect(lines.map((l) => l.msg)).toContain('twilio: could not check for an earlier send; sending');
  });
});

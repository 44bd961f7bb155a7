// SMS opt-out keywords: Twilio unsubscribes the sender itself, so the relay runs nothing, and stops
// replying (21610) until START; on WhatsApp through Twilio the same words are ordinary messages.
import { afterEach, describe, expect, it } from 'vitest';
import { optKeyword } from '../../../src/channels/twilio/opt-out.js';
import { type FakeTwilio, startFakeTwilio } from './helpers/fake-twilio.js';
import {
  createInbox,
  type Harness,
  smsParams,
  startChannel,
  twilioConfig,
  twilioPost,
} from './helpers/harness.js';

let fake: FakeTwilio | undefined;
let h: Harness | undefined;

afterEach(async () => {
  await h?.stop();
  h = undefined;
  await fake?.close();
  fake = undefined;
});

describe('optKeyword', () => {
  it.each([
    ['sms', 'STOP', undefined, 'opt_out'],
    ['sms', '  stop \n', undefined, 'opt_out'],
    ['sms', 'Unsubscribe', undefined, 'opt_out'],
    ['sms', 'cancel', undefined, 'opt_out'],
    ['sms', 'start', undefined, 'opt_in'],
    ['sms', 'UNSTOP', undefined, 'opt_in'],
    ['sms', 'yes', undefined, undefined],
    ['sms', 'stop the build', undefined, undefined],
    ['sms', 'help', undefined, undefined],
    ['sms', 'halt', 'STOP', 'opt_out'],
    ['sms', 'resume', 'START', 'opt_in'],
    ['sms', 'STOP', 'HELP', undefined],
    ['whatsapp', 'STOP', undefined, undefined],
    ['whatsapp', 'stop', 'STOP', 'opt_out'],
  ] as const)('%s %j (OptOutType %s) → %s', (kind, body, type, expected) => {
    expect(optKeyword(kind, body, type)).toBe(expected);
  });
});

describe('twilio webhook: STOP and START', () => {
  async function start(section: Record<string, unknown> = {}) {
    fake = await startFakeTwilio();
    let rows: () => unknown[] = () => [];
    h = await startChannel(twilioConfig({ apiBaseUrl: fake.url, ...section }), (db) => {
      const inbox = createInbox(db);
      rows = inbox.rows;
      return inbox.handler;
    });
    return { ...h, rows: () => rows() };
  }
  const sid = (n: number) => `SM${String(n).repeat(32)}`;

  it('STOP runs nothing and stops replies; START re-enables them without a run', async () => {
    const { base, channel, rows, capture } = await start();
    const url = `${base}/twilio/inbound`;
    const stop = await twilioPost(url, smsParams({ Body: 'STOP', MessageSid: sid(1) }));
    expect(stop.status).toBe(200);
    expect(await stop.text()).toContain('<Response/>');
    expect(rows()).toEqual([]);
    expect(capture.text()).not.toContain('STOP"');
    const blocked = await channel.send('+15551234567', { type: 'text', text: 'late reply' });
    expect(blocked).toMatchObject({ ok: false, retryable: false, code: '21610' });
    expect(fake!.attempts).toHaveLength(0);

    expect((await twilioPost(url, smsParams({ Body: 'start', MessageSid: sid(2) }))).status).toBe(200);
    expect(rows()).toEqual([]);
    expect((await channel.send('+15551234567', { type: 'text', text: 'back' })).ok).toBe(true);
    expect(fake!.created.map((m) => m.body)).toEqual(['back']);
  });

  it('a Messaging Service names the keyword in OptOutType, custom words included', async () => {
    const { base, channel, rows } = await start();
    const url = `${base}/twilio/inbound`;
    await twilioPost(url, smsParams({ Body: 'basta', OptOutType: 'STOP', MessageSid: sid(3) }));
    expect(rows()).toEqual([]);
    expect(await channel.send('+15551234567', { type: 'text', text: 'x' })).toMatchObject({ code: '21610' });
  });

  it('on WhatsApp through Twilio "stop" is an ordinary message', async () => {
    const { base, rows } = await start();
    const from = 'whatsapp:+15551234567';
    await twilioPost(`${base}/twilio/inbound`, smsParams({ From: from, Body: 'stop', MessageSid: sid(4) }));
    expect(rows()).toHaveLength(1);
  });

  it('a stranger who sends STOP gets no refusal text', async () => {
    const { base } = await start({ refusalText: 'This number is private.' });
    const res = await twilioPost(`${base}/twilio/inbound`, smsParams({ From: '+15559876543', Body: 'STOP' }));
    expect(await res.text()).not.toContain('<Message>');
  });
});

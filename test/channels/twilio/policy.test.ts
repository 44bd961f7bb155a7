// Table tests for the Twilio channel's pure policy: addresses, parameters, error codes, status order.
import { describe, expect, it } from 'vitest';
import { isAllowed, parseRecipient, parseSender, senderFor } from '../../../src/channels/twilio/address.js';
import { classifyFailure, parseRetryAfter } from '../../../src/channels/twilio/errors.js';
import { parseInboundParams } from '../../../src/channels/twilio/params.js';
import { rebase } from '../../../src/channels/twilio/rest.js';
import { resolveTwilioSettings, siblingUrl } from '../../../src/channels/twilio/settings.js';
import { signedUrlCandidates } from '../../../src/channels/twilio/signature.js';
import { nextStatus, outcomeOf } from '../../../src/channels/twilio/status.js';
import { configSchema } from '../../../src/config/schema.js';

describe('parseSender', () => {
  it.each([
    ['+15551234567', { chatId: '+15551234567', senderId: '+15551234567', kind: 'sms' }],
    [
      'whatsapp:+15551234567',
      { chatId: 'whatsapp:+15551234567', senderId: '+15551234567', kind: 'whatsapp' },
    ],
    ['WhatsApp:15551234567', { chatId: 'whatsapp:+15551234567', senderId: '+15551234567', kind: 'whatsapp' }],
    ['  +15551234567 ', { chatId: '+15551234567', senderId: '+15551234567', kind: 'sms' }],
    ['MyBank', { chatId: 'MyBank', senderId: 'MyBank', kind: 'sms' }],
  ])('%s', (from, expected) => expect(parseSender(from)).toEqual(expected));
});

describe('isAllowed', () => {
  it.each([
    [['+15551234567'], '+15551234567', true],
    [['+15551234567'], '+15551234568', false],
    [[], '+15551234567', false],
    ['*', '+15551234567', true],
    [['*'], 'MyBank', true],
    [['+15551234567'], 'MyBank', false],
  ] as const)('%j allows %s: %s', (list, sender, ok) => expect(isAllowed(list, sender)).toBe(ok));
});

describe('parseRecipient / senderFor', () => {
  it.each([
    ['+15551234567', { to: '+15551234567', kind: 'sms' }],
    ['whatsapp:+15551234567', { to: 'whatsapp:+15551234567', kind: 'whatsapp' }],
    ['--version', undefined],
    ['+1', undefined],
    ['whatsapp:', undefined],
  ])('recipient %s', (chat, expected) => expect(parseRecipient(chat)).toEqual(expected));

  it.each([
    ['sms', { from: '+15550000000' }, { from: '+15550000000' }],
    ['whatsapp', { from: '+15550000000' }, { from: 'whatsapp:+15550000000' }],
    ['sms', { from: 'whatsapp:+15550000000' }, { from: '+15550000000' }],
    ['sms', { from: '+1', messagingServiceSid: 'MG1' }, { messagingServiceSid: 'MG1' }],
    ['sms', {}, undefined],
  ] as const)('%s from %j', (kind, cfg, expected) => expect(senderFor(kind, cfg)).toEqual(expected));
});

describe('parseInboundParams', () => {
  const ok = { MessageSid: `SM${'0'.repeat(32)}`, From: '+15551234567', Body: 'hi' };
  it.each([
    [{ ...ok }, true, undefined],
    [{ ...ok, From: undefined }, false, 'missing From'],
    [{ ...ok, From: '+1555\u0000666' }, false, 'From is not an address'],
    [{ ...ok, From: ' +15551234567\n' }, true, undefined],
    [{ ...ok, MessageSid: undefined }, false, 'missing MessageSid'],
    [{ ...ok, From: ['+1', '+2'] }, false, 'From is repeated or not text'],
    [{ ...ok, NumMedia: 'abc' }, false, 'NumMedia is not a number'],
    [{ ...ok, NumMedia: '-1' }, false, 'NumMedia is not a number'],
    [{ ...ok, NumMedia: '11' }, false, 'NumMedia over 10'],
    [{ ...ok, NumMedia: '2', MediaUrl0: 'https://api.twilio.com/a' }, false, 'MediaUrl1 missing'],
    [{ ...ok, NumMedia: '1', MediaUrl0: 'file:///etc/passwd' }, false, 'MediaUrl0 is not an http(s) URL'],
    [
      { ...ok, NumMedia: '1', MediaUrl0: 'https://x/a', MediaContentType0: 'x y' },
      false,
      'MediaContentType0 is not a MIME type',
    ],
    [undefined, false, 'no form parameters'],
  ])('%j → ok %s', (body, valid, reason) => {
    const r = parseInboundParams(body);
    expect(r.ok).toBe(valid);
    if (!r.ok) expect(r.reason).toBe(reason);
  });

  it('keeps a shared place as text, unchecked (the inbound step decides what it shows)', () => {
    const r = parseInboundParams({
      ...ok,
      Body: '',
      Latitude: '37.7749',
      Longitude: '-122.4194',
      Label: 'Office',
    });
    expect(r).toMatchObject({
      ok: true,
      value: { place: { latitude: '37.7749', longitude: '-122.4194', label: 'Office' } },
    });
    expect(parseInboundParams(ok)).not.toHaveProperty('value.place');
    expect(parseInboundParams({ ...ok, Latitude: ['1', '2'] })).toEqual({
      ok: false,
      reason: 'Latitude is repeated or not text',
    });
  });

  it('reads media in order and keeps the attacker-controlled name as display only', () => {
    const r = parseInboundParams({
      ...ok,
      ProfileName: ' ../../evil ',
      NumMedia: '2',
      MediaUrl0: 'https://api.twilio.com/m0',
      MediaContentType0: 'image/jpeg',
      MediaUrl1: 'https://api.twilio.com/m1',
    });
    expect(r).toEqual({
      ok: true,
      value: expect.objectContaining({
        profileName: '../../evil',
        media: [
          { url: 'https://api.twilio.com/m0', contentType: 'image/jpeg' },
          { url: 'https://api.twilio.com/m1', contentType: 'application/octet-stream' },
        ],
      }),
    });
  });
});

describe('classifyFailure', () => {
  it.each([
    [
      { status: 429, code: 20429 },
      { retryable: true, retryNow: true, blockRecipient: false, code: '20429' },
    ],
    [
      { status: 500, code: 20500 },
      { retryable: true, retryNow: true, blockRecipient: false, code: '20500' },
    ],
    [{ status: 502 }, { retryable: true, retryNow: true, blockRecipient: false, code: undefined }],
    [
      { status: 400, code: 21610 },
      { retryable: false, retryNow: false, blockRecipient: true, code: '21610' },
    ],
    [
      { status: 400, code: 63016 },
      { retryable: false, retryNow: false, blockRecipient: true, code: '63016' },
    ],
    [
      { status: 400, code: 21211 },
      { retryable: false, retryNow: false, blockRecipient: false, code: '21211' },
    ],
    [
      { status: 400, code: 21617 },
      { retryable: false, retryNow: false, blockRecipient: false, code: '21617' },
    ],
    [
      { status: 429, code: 63018 },
      { retryable: true, retryNow: false, blockRecipient: false, code: '63018' },
    ],
    [
      { status: 401, code: 20003 },
      { retryable: false, retryNow: false, blockRecipient: false, code: '20003' },
    ],
    [{ network: 'ECONNREFUSED' }, { retryable: true, retryNow: true, blockRecipient: false }],
    // A timeout may have reached Twilio: no immediate second copy.
    [{ network: 'ECONNABORTED' }, { retryable: true, retryNow: false, blockRecipient: false }],
  ])('%j', (input, expected) => expect(classifyFailure(input)).toMatchObject(expected));
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  it.each<[string | undefined, number | undefined]>([
    [undefined, undefined],
    ['', undefined],
    ['0', 0],
    ['30', 30_000],
    [' 5 ', 5_000],
    ['Thu, 01 Jan 2026 00:01:00 GMT', 60_000],
    // A date in the past: come back now.
    ['Wed, 31 Dec 2025 23:00:00 GMT', 0],
    // A year is a broken answer: at most a day.
    ['31536000', 86_400_000],
    ['-5', undefined],
    ['soon', undefined],
    ['1.5', undefined],
  ])('%j', (value, expected) => expect(parseRetryAfter(value, now)).toBe(expected));
});

describe('nextStatus', () => {
  it.each([
    ['queued', 'sent', 'sent'],
    ['sent', 'delivered', 'delivered'],
    ['delivered', 'sent', 'delivered'],
    ['delivered', 'read', 'read'],
    ['delivered', 'failed', 'delivered'],
    ['failed', 'read', 'failed'],
    ['sent', 'undelivered', 'undelivered'],
    ['queued', 'bogus', 'queued'],
    ['accepted', 'queued', 'queued'],
  ])('%s + %s → %s', (cur, inc, want) => expect(nextStatus(cur, inc)).toBe(want));

  it.each([
    ['read', 'delivered'],
    ['undelivered', 'failed'],
    ['partially_delivered', 'partial'],
    ['sent', 'pending'],
  ] as const)('%s is %s', (s, o) => expect(outcomeOf(s)).toBe(o));
});

describe('URLs', () => {
  it.each([
    [
      'https://api.twilio.com/2010-04-01/A/Messages.json?Page=1',
      'http://127.0.0.1:9/x',
      'http://127.0.0.1:9/x/2010-04-01/A/Messages.json?Page=1',
    ],
    [
      'https://api.sydney.au1.twilio.com/2010-04-01/A',
      'http://127.0.0.1:9',
      'http://127.0.0.1:9/2010-04-01/A',
    ],
  ])('rebase %s on %s', (uri, base, want) => expect(rebase(uri, base)).toBe(want));

  it.each([
    ['https://h.example/wh?x=1#rc=2', 'status', 'https://h.example/wh/status?x=1'],
    ['https://h.example/wh/', 'status', 'https://h.example/wh/status'],
  ])('sibling of %s', (url, leaf, want) => expect(siblingUrl(url, leaf)).toBe(want));

  it('signs against the public URL only when one is configured', () => {
    const req = { protocol: 'http', originalUrl: '/local?a=1', get: () => '127.0.0.1:8787' };
    expect(signedUrlCandidates(req, undefined)).toEqual(['http://127.0.0.1:8787/local?a=1']);
    expect(signedUrlCandidates(req, 'https://p.example/wh')).toEqual(['https://p.example/wh']);
    expect(signedUrlCandidates(req, 'https://p.example/wh#rc=3')).toEqual([
      'https://p.example/wh#rc=3',
      'https://p.example/wh',
    ]);
  });

  it('derives status and media URLs from publicUrl, and prefers API keys for REST', () => {
    const config = configSchema.parse({
      twilio: { accountSid: 'AC1', authToken: 'tok', webhook: { publicUrl: 'https://p.example/wh?k=1' } },
    });
    const s = resolveTwilioSettings(config, { TWILIO_API_KEY: 'SK1', TWILIO_API_SECRET: 'sec' });
    expect(s.publicStatusUrl).toBe('https://p.example/wh/status?k=1');
    expect(s.mediaBaseUrl).toBe('https://p.example/wh/media');
    expect(s.rest).toEqual({ accountSid: 'AC1', username: 'SK1', password: 'sec' });
    expect(s.statusPath).toBe('/twilio/inbound/status');
  });

  it.each([
    ['http://127.0.0.1:9', true],
    ['http://localhost:9', true],
    ['https://api.example', true],
    ['http://api.example', false],
  ])('apiBaseUrl %s accepted: %s', (url, ok) => {
    expect(configSchema.safeParse({ twilio: { apiBaseUrl: url } }).success).toBe(ok);
  });
});

describe('who the gate lets in on Twilio (dm, access.owners, access.guests)', () => {
  it.each<[string, Record<string, unknown>, string, boolean]>([
    ['allowlist: a listed number', { twilio: { allowFrom: ['+15550001'] } }, '+15550001', true],
    ['allowlist: a stranger', { twilio: { allowFrom: ['+15550001'] } }, '+15559999', false],
    [
      'allowlist: a guest',
      { twilio: { allowFrom: ['+15550001'] }, access: { guests: ['+15559999'] } },
      '+15559999',
      true,
    ],
    [
      'allowlist: a guest of another channel only',
      { twilio: { allowFrom: ['+15550001'] }, access: { guests: ['telegram:+15559999'] } },
      '+15559999',
      false,
    ],
    [
      'allowlist: an extra owner',
      { twilio: { allowFrom: [] }, access: { owners: ['twilio:+15559999'] } },
      '+15559999',
      true,
    ],
    ['everyone: a stranger', { twilio: { allowFrom: [], dm: 'everyone' } }, '+15559999', true],
    [
      'none: the first allowFrom entry (the owner)',
      { twilio: { allowFrom: ['+15550001', '+15550002'], dm: 'none' } },
      '+15550001',
      true,
    ],
    [
      'none: another listed number',
      { twilio: { allowFrom: ['+15550001', '+15550002'], dm: 'none' } },
      '+15550002',
      false,
    ],
    [
      'none: a guest',
      { twilio: { allowFrom: ['+15550001'], dm: 'none' }, access: { guests: ['+15559999'] } },
      '+15559999',
      false,
    ],
  ])('%s', (_n, raw, sender, want) => {
    const s = resolveTwilioSettings(configSchema.parse(raw), {});
    expect(isAllowed(s.allowFrom, sender)).toBe(want);
  });
});

import { proto } from '@whiskeysockets/baileys';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ownIds } from '../../../src/channels/whatsapp/jid.js';
import { classify } from '../../../src/channels/whatsapp/normalize.js';
import { sharedContent, vcardPhones } from '../../../src/channels/whatsapp/shared-content.js';
import { OWNER_LID, OWNER_PN } from './fake-socket.js';
import { waMessage } from './messages.js';

const ALICE = '15557654321@s.whatsapp.net';
const VCARD = [
  'BEGIN:VCARD',
  'VERSION:3.0',
  'FN:Jane Doe',
  'item1.TEL;waid=15551234567:+1 555-123-4567',
  'item1.X-ABLabel:Mobile',
  'TEL;TYPE=work:+44 20 7946',
  ' 0958',
  'PHOTO;ENCODING=b;TYPE=JPEG:/9j/4AAQSkZJRgABAQ',
  'END:VCARD',
].join('\r\n');

// Built through Baileys' own proto classes, as a real upsert is decoded.
const msg = (m: proto.IMessage) => proto.Message.fromObject(m);

describe('sharedContent', () => {
  it.each([
    [
      'a pin with a name and an address',
      {
        locationMessage: {
          degreesLatitude: 52.516275,
          degreesLongitude: 13.377704,
          name: 'Brandenburger Tor',
          address: 'Pariser Platz, Berlin',
        },
      },
      '[shared a location: 52.516275, 13.377704 — Brandenburger Tor — Pariser Platz, Berlin]',
    ],
    [
      'a bare pin (whole degrees, southern and western)',
      { locationMessage: { degreesLatitude: -33, degreesLongitude: -70.5 } },
      '[shared a location: -33, -70.5]',
    ],
    [
      'a live location with a caption',
      { liveLocationMessage: { degreesLatitude: 48.8584, degreesLongitude: 2.2945, caption: 'on my way' } },
      '[shared a live location: 48.8584, 2.2945 — on my way]',
    ],
    [
      'a location flagged live',
      { locationMessage: { degreesLatitude: 1.5, degreesLongitude: 2.5, isLive: true } },
      '[shared a live location: 1.5, 2.5]',
    ],
    [
      'coordinates out of range are not coordinates',
      { locationMessage: { degreesLatitude: 91, degreesLongitude: 10, name: 'Nowhere' } },
      '[shared a location without coordinates: Nowhere]',
    ],
    [
      'a contact card: its name and phone numbers, not the rest of the vCard',
      { contactMessage: { displayName: 'Jane Doe', vcard: VCARD } },
      // The folded line joins without the fold's space (RFC 6350 3.2).
      '[shared a contact: Jane Doe (+1 555-123-4567, +44 20 79460958)]',
    ],
    [
      'several contacts',
      {
        contactsArrayMessage: {
          displayName: '2 contacts',
          contacts: [
            { displayName: 'Jane', vcard: 'BEGIN:VCARD\nTEL:+15550001\nEND:VCARD' },
            { displayName: 'Bob' },
          ],
        },
      },
      '[shared 2 contacts: Jane (+15550001); Bob]',
    ],
    [
      'a poll',
      {
        pollCreationMessageV3: {
          name: 'Lunch?',
          options: [{ optionName: 'Pizza' }, { optionName: 'Sushi' }],
          selectableOptionsCount: 1,
        },
      },
      '[started a poll: Lunch? — options: Pizza / Sushi]',
    ],
    [
      'a first-version poll',
      { pollCreationMessage: { name: 'Ship it?', options: [{ optionName: 'yes' }, { optionName: 'no' }] } },
      '[started a poll: Ship it? — options: yes / no]',
    ],
  ])('%s', (_name, m, text) => {
    expect(sharedContent(msg(m as proto.IMessage))?.text).toBe(text);
  });

  it.each([
    ['text', { conversation: 'hi' }],
    ['a location with nothing usable', { locationMessage: { degreesLatitude: Number.NaN } }],
    ['an empty contacts array', { contactsArrayMessage: { contacts: [] } }],
    ['a poll with neither question nor options', { pollCreationMessage: { options: [] } }],
  ])('nothing for %s', (_name, m) => {
    expect(sharedContent(msg(m as proto.IMessage))).toBeUndefined();
  });

  it('keeps the quoted message a shared location replies to', () => {
    const out = sharedContent(
      msg({ locationMessage: { degreesLatitude: 1, degreesLongitude: 2, contextInfo: { stanzaId: 'Q1' } } }),
    );
    expect(out?.contextInfo?.stanzaId).toBe('Q1');
  });

  it('bounds what a sender controls: ten contacts shown, five numbers each, fields cut', () => {
    const many = Array.from({ length: 25 }, (_, i) => ({
      displayName: `C${i}`,
      vcard: Array.from({ length: 9 }, (_, j) => `TEL:+1555000${j}`).join('\n'),
    }));
    const text = sharedContent(msg({ contactsArrayMessage: { contacts: many } }))?.text ?? '';
    expect(
      text.startsWith('[shared 25 contacts: C0 (+15550000, +15550001, +15550002, +15550003, +15550004); C1'),
    ).toBe(true);
    expect(text).toContain('; and 15 more]');
    expect(text).not.toContain('C10 ');
    const long = sharedContent(msg({ pollCreationMessage: { name: 'x'.repeat(5000) } }))?.text ?? '';
    expect(long.length).toBeLessThan(400);
  });
});

describe('sharedContent: hostile fields', () => {
  it('is always one bounded line, whatever the sender puts in names, options and vCards', () => {
    const field = fc.string({ unit: 'binary', maxLength: 2000 });
    fc.assert(
      fc.property(field, fc.array(field, { maxLength: 30 }), field, (name, options, vcard) => {
        for (const m of [
          { pollCreationMessage: { name, options: options.map((optionName) => ({ optionName })) } },
          { contactsArrayMessage: { contacts: options.map((displayName) => ({ displayName, vcard })) } },
          { locationMessage: { degreesLatitude: 1, degreesLongitude: 2, name, address: vcard } },
        ]) {
          const text = sharedContent(msg(m))?.text ?? '';
          expect(text).not.toMatch(/[\n\r\u2028\u2029]/);
          expect(text.length).toBeLessThan(8000);
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('vcardPhones', () => {
  it('reads TEL lines, grouped or not, folded or not, tel: URIs included', () => {
    expect(
      vcardPhones('BEGIN:VCARD\nitem2.TEL:tel:+4930123\nTEL;TYPE=cell:+1 (555)\n  010-9999\nEND:VCARD'),
    ).toEqual(['+4930123', '+1 (555) 010-9999']);
    expect(vcardPhones('FN:No Phone\nNOTE:TEL:not a number')).toEqual([]);
    expect(vcardPhones(undefined)).toEqual([]);
  });
});

describe('classify: shared content reaches the agent as text', () => {
  const ctx = {
    own: ownIds({ id: `${OWNER_PN}:7@s.whatsapp.net`, lid: `${OWNER_LID}:7@lid` }),
    now: 1_800_000_000_000,
    offlineWindowMs: 300_000,
  };

  it('a location in a disappearing chat is a message with the pin as its text', () => {
    const m = waMessage(
      { chat: ALICE },
      { ephemeralMessage: { message: { locationMessage: { degreesLatitude: 10, degreesLongitude: 20 } } } },
    );
    expect(classify(m, 'notify', ctx)).toMatchObject({
      type: 'message',
      text: '[shared a location: 10, 20]',
    });
  });
});

// Pure: what a person shares on WhatsApp that is neither text nor a file (a location, a live location,
// contact cards, a poll) as one short text for the agent, so "how far is this from the office?" with
// a pin attached reaches the agent with the pin. Everything is untrusted and bounded: coordinates
// must be real ones, each string is one cut line, and of a contact card only the name and phone
// numbers are kept (a vCard can carry anything, up to photos in base64).
import type { proto } from '@whiskeysockets/baileys';
import { sanitizeLine } from '../../core/line.js';
import { placeText } from '../../core/shared-place.js';

export interface SharedContent {
  text: string;
  contextInfo?: proto.IContextInfo | null;
}

/** Longest kept poll question (characters). */
const FIELD_MAX = 300;
const clean = (s: string | null | undefined, max = FIELD_MAX): string => (s ? sanitizeLine(s, max) : '');
const CONTACTS_MAX = 10;
const PHONES_MAX = 5;
const OPTIONS_MAX = 12;

export function sharedContent(c: proto.IMessage): SharedContent | undefined {
  if (c.locationMessage) {
    const m = c.locationMessage;
    return withContext(
      placeText(m.isLive ? 'a live location' : 'a location', m.degreesLatitude, m.degreesLongitude, [
        m.name,
        m.address,
        m.comment,
      ]),
      m,
    );
  }
  if (c.liveLocationMessage) {
    const m = c.liveLocationMessage;
    return withContext(placeText('a live location', m.degreesLatitude, m.degreesLongitude, [m.caption]), m);
  }
  if (c.contactMessage) return withContext(contacts([c.contactMessage]), c.contactMessage);
  if (c.contactsArrayMessage) {
    const m = c.contactsArrayMessage;
    return withContext(contacts(m.contacts ?? []), m);
  }
  const poll =
    c.pollCreationMessage ?? c.pollCreationMessageV2 ?? c.pollCreationMessageV3 ?? c.pollCreationMessageV5;
  if (poll) return withContext(pollText(poll), poll);
  return undefined;
}

function withContext(
  text: string | undefined,
  m: { contextInfo?: proto.IContextInfo | null },
): SharedContent | undefined {
  return text === undefined ? undefined : { text, contextInfo: m.contextInfo };
}

/** The phone numbers of a vCard (TEL lines; unfolded, values only, bounded). */
export function vcardPhones(vcard: string | null | undefined): string[] {
  if (!vcard) return [];
  const phones: string[] = [];
  // Folded lines (RFC 6350 3.2) continue with a space or tab.
  for (const line of vcard
    .slice(0, 64 * 1024)
    .replace(/\r?\n[ \t]/g, '')
    .split(/\r?\n/)) {
    const m = /^(?:[\w-]+\.)?TEL[^:]*:(.*)$/i.exec(line);
    if (!m) continue;
    const value = clean(m[1]?.replace(/^tel:/i, ''), 40);
    if (value && /\d/.test(value)) phones.push(value);
    if (phones.length === PHONES_MAX) break;
  }
  return phones;
}

function contacts(list: proto.Message.IContactMessage[]): string | undefined {
  const shown = list.slice(0, CONTACTS_MAX).map((c) => {
    const name = clean(c.displayName, 100) || 'no name';
    const phones = vcardPhones(c.vcard);
    return phones.length > 0 ? `${name} (${phones.join(', ')})` : name;
  });
  if (shown.length === 0) return undefined;
  const more = list.length > CONTACTS_MAX ? `; and ${list.length - CONTACTS_MAX} more` : '';
  const what = list.length === 1 ? 'a contact' : `${list.length} contacts`;
  return `[shared ${what}: ${shown.join('; ')}${more}]`;
}

function pollText(p: proto.Message.IPollCreationMessage): string | undefined {
  const question = clean(p.name);
  const options = (p.options ?? [])
    .map((o) => clean(o.optionName, 100))
    .filter(Boolean)
    .slice(0, OPTIONS_MAX);
  if (!question && options.length === 0) return undefined;
  return `[started a poll: ${question || 'no question'}${options.length > 0 ? ` — options: ${options.join(' / ')}` : ''}]`;
}

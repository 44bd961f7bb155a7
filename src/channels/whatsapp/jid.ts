// JID helpers. WhatsApp addresses a person by phone JID (`15551234567@s.whatsapp.net`, maybe with a
// `:device` suffix) or, since the LID migration, by an opaque `123…@lid`; only the phone form maps
// to an E.164 number, which is what allow-lists and chat ids use.
// Baileys' own JID helpers, from the one file that holds them: it imports nothing, while the
// package root loads all of Baileys (about 165 ms and 55 MB) into processes that only read a JID.
import {
  isJidGroup,
  isLidUser,
  isPnUser,
  jidDecode,
  jidNormalizedUser,
} from '@whiskeysockets/baileys/lib/WABinary/jid-utils.js';

/** E.164 for a phone JID (device suffix ignored), else undefined. */
export function e164FromJid(jid: string | null | undefined): string | undefined {
  if (!jid) return undefined;
  const norm = jidNormalizedUser(jid);
  if (!isPnUser(norm)) return undefined;
  const user = jidDecode(norm)?.user ?? '';
  return /^[1-9]\d{6,14}$/.test(user) ? `+${user}` : undefined;
}

export const pnJidFromE164 = (e164: string): string => `${e164.replace(/^\+/, '')}@s.whatsapp.net`;

export const isE164 = (s: string): boolean => /^\+[1-9]\d{6,14}$/.test(s);

/** The account's own identities (phone and LID), normalised without device suffixes. */
export interface OwnIds {
  pn?: string;
  lid?: string;
  e164?: string;
}

export function ownIds(user: { id?: string; lid?: string; phoneNumber?: string } | undefined): OwnIds {
  if (!user) return {};
  const candidates = [user.id, user.lid, user.phoneNumber].filter((v): v is string => Boolean(v));
  const out: OwnIds = {};
  for (const c of candidates) {
    const n = jidNormalizedUser(c);
    if (isPnUser(n)) out.pn ??= n;
    else if (isLidUser(n)) out.lid ??= n;
  }
  const e164 = e164FromJid(out.pn);
  if (e164) out.e164 = e164;
  return out;
}

/** True when `jid` (any device, phone or LID form) is the linked account itself. */
export function isOwnJid(jid: string | null | undefined, own: OwnIds): boolean {
  if (!jid) return false;
  const n = jidNormalizedUser(jid);
  return n !== '' && (n === own.pn || n === own.lid);
}

/** The chat id the core sees: E.164 for a person when known, the group JID for groups, else the JID. */
export function chatIdFor(chatJid: string, senderE164: string | undefined): string {
  if (isJidGroup(chatJid)) return chatJid;
  return senderE164 ?? jidNormalizedUser(chatJid);
}

// Sender → E.164 (research A8): the phone JID itself, else the alternate JID WhatsApp sent along
// (`remoteJidAlt` in direct chats, `participantAlt` in groups), else Baileys' LID mapping store.
// Unresolved stays undefined, and the gate treats undefined as "not on any list".
import { isLidUser, jidNormalizedUser } from '@whiskeysockets/baileys';
import { e164FromJid, type OwnIds } from './jid.js';
import type { NormalizedMessage } from './normalize.js';

export type LidLookup = (lid: string) => Promise<string | null>;

export async function resolveSenderE164(
  msg: Pick<NormalizedMessage, 'fromMe' | 'senderJid' | 'senderAlt'>,
  own: OwnIds,
  lookup: LidLookup | undefined,
): Promise<string | undefined> {
  if (msg.fromMe) return own.e164;
  const direct = e164FromJid(msg.senderJid) ?? e164FromJid(msg.senderAlt);
  if (direct) return direct;
  const lid = [msg.senderJid, msg.senderAlt].find((j) => j && isLidUser(jidNormalizedUser(j)));
  if (!lid || !lookup) return undefined;
  try {
    return e164FromJid(await lookup(lid));
  } catch {
    return undefined;
  }
}

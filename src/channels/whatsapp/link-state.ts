// Whether a WhatsApp device is linked, read from the stored creds without loading Baileys. Status,
// doctor, logout and the heartbeat's default target ask this in processes that never open a socket;
// importing Baileys' package root costs them about 165 ms and 55 MB (docs/performance.md).
import type { StoredCreds, WhatsAppAuthStore } from '../../store/whatsapp-auth.js';
import { e164FromJid } from './jid.js';

/** `logged_out`: the phone unlinked this device (close code 401); the old creds are kept until logout/login. */
export type LinkState = 'unlinked' | 'linked' | 'logged_out';

/** The two creds fields that say pairing succeeded (a subset of Baileys' AuthenticationCreds). */
interface LinkFields {
  account?: unknown;
  me?: { id?: string };
}

/** True once pairing succeeded: the account signature and our own JID are both present. */
export const isLinkedCreds = (c: LinkFields): boolean => Boolean(c.account && c.me?.id);

// Plain JSON.parse: Baileys' BufferJSON reviver only turns {type:'Buffer'} objects back into
// Buffers, and neither field read here is one (`account` is an object either way, `me.id` a string).
const fields = (data: string): LinkFields => JSON.parse(data) as LinkFields;

export function linkStateOf(row: StoredCreds | undefined): LinkState {
  if (!row) return 'unlinked';
  if (row.loggedOutAt !== null) return 'logged_out';
  try {
    return isLinkedCreds(fields(row.data)) ? 'linked' : 'unlinked';
  } catch {
    // Unreadable creds are not "unlinked": treating them so is how relays replaced identities.
    return 'linked';
  }
}

/** The linked number (E.164), e.g. the default heartbeat target "whatsapp:<own number>" (self-chat). */
export function linkedAccountOf(row: StoredCreds | undefined): string | undefined {
  if (!row || row.loggedOutAt !== null) return undefined;
  return storedAccountOf(row);
}

/**
 * The number of the stored link, also after the phone logged it out (the creds stay until the next
 * login): where the owner is told that WhatsApp needs a relink.
 */
export function storedAccountOf(row: StoredCreds | undefined): string | undefined {
  if (!row) return undefined;
  try {
    const creds = fields(row.data);
    return isLinkedCreds(creds) ? e164FromJid(creds.me?.id) : undefined;
  } catch {
    return undefined;
  }
}

type Creds = Pick<WhatsAppAuthStore, 'readCreds'>;

export const linkState = async (auth: Creds): Promise<LinkState> => linkStateOf(await auth.readCreds());
export const linkedAccount = async (auth: Creds): Promise<string | undefined> =>
  linkedAccountOf(await auth.readCreds());
export const storedAccount = async (auth: Creds): Promise<string | undefined> =>
  storedAccountOf(await auth.readCreds());

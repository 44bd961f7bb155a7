// Whether WhatsApp credentials are in the store, read without opening a WhatsApp socket and without
// writing: the store file is opened read-only and never migrated here.
import { linkStateOf } from '../../channels/whatsapp/link-state.js';
import type { Paths } from '../../config/paths.js';
import { readWhatsAppCredsFile } from '../../store/sqlite/status-read.js';
import type { LinkState } from './whatsapp.js';

export async function linkStateFromStore(paths: Pick<Paths, 'db'>): Promise<LinkState> {
  const creds = await readWhatsAppCredsFile(paths.db);
  if (creds === 'unreadable') return 'unknown';
  const s = linkStateOf(creds);
  return s === 'unlinked' ? 'not_linked' : s;
}

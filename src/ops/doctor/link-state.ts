// Whether WhatsApp credentials are in the store, read without opening a WhatsApp socket and without
// writing: the store is read read-only and never migrated here (store/admin.ts).
import { linkStateOf } from '../../channels/whatsapp/link-state.js';
import type { StoreAdmin } from '../../store/admin.js';
import type { LinkState } from './whatsapp.js';

export async function linkStateFromStore(store: Pick<StoreAdmin, 'whatsappCreds'>): Promise<LinkState> {
  const creds = await store.whatsappCreds();
  if (creds === 'unreadable') return 'unknown';
  const s = linkStateOf(creds);
  return s === 'unlinked' ? 'not_linked' : s;
}

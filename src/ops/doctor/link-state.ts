// Whether WhatsApp credentials are in the store, read without opening a WhatsApp socket and without
// writing: the database is opened read-only and never migrated here.
import { existsSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { linkState } from '../../channels/whatsapp/link-state.js';
import type { Paths } from '../../config/paths.js';
import type { LinkState } from './whatsapp.js';

export function linkStateFromStore(paths: Pick<Paths, 'db'>): LinkState {
  if (!existsSync(paths.db)) return 'not_linked';
  let db: DatabaseSync | undefined;
  try {
    db = new DatabaseSync(paths.db, { readOnly: true });
    const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'wa_creds'").get();
    if (!table) return 'not_linked';
    const s = linkState(db);
    return s === 'unlinked' ? 'not_linked' : s;
  } catch {
    return 'unknown';
  } finally {
    db?.close();
  }
}

// The store's database server, when the engine has one (store.engine 'postgres'): reachable, which
// server, and whether its schema is the one this agentwire writes. The URL is named without its
// password (StoreAdmin.where never holds a secret).
import type { StoreAdmin, StoreHealth } from '../../store/admin.js';
import { type Finding, fail, ok, warn } from './types.js';

/** The finding for one answer of the server (pure: the table tests feed it answers). */
export function storeFinding(where: string, h: StoreHealth): Finding {
  if (!h.reachable)
    return fail(
      'store',
      `the store's database at ${where} cannot be reached: ${h.error}`,
      'start PostgreSQL or fix store.url (or AGENTWIRE_STORE_URL, or the PG* variables it was made of); the relay cannot accept messages without it',
    );
  const at = `${h.server} at ${where}`;
  if (h.schemaVersion === 0)
    return warn('store', `${at} is reachable and empty`, 'start the relay once: it creates the tables');
  if (h.schemaVersion > h.knownVersion)
    return fail(
      'store',
      `${at} holds schema version ${h.schemaVersion}, newer than this agentwire knows (${h.knownVersion})`,
      'upgrade agentwire on this machine: every relay on one database must run the same version',
    );
  if (h.schemaVersion < h.knownVersion)
    return warn(
      'store',
      `${at} holds schema version ${h.schemaVersion}; this agentwire writes ${h.knownVersion}`,
      'the next relay started migrates it; stop older relays on this database first',
    );
  return ok('store', `${at}, schema version ${h.schemaVersion} (current)`);
}

export async function checkStore(store: Pick<StoreAdmin, 'where' | 'health'>): Promise<Finding[]> {
  if (!store.health) return [];
  return [storeFinding(store.where, await store.health())];
}

// Opens the store and picks its engine from the store config: the one door composition roots
// (relay.ts, send-once.ts, a CLI command) go through. The engine is loaded by dynamic import, only
// when chosen, so this file and everything else at the top of src/store/ import no engine: what
// callers may count on is the contract (store/store.ts, store/queue-ops.ts, store/admin.ts).
import type { StoreAdmin } from './admin.js';
import type { Store } from './store.js';

export type { Store, WhatsAppStore } from './store.js';

/**
 * Which engine, and where its store is. SQLite keeps one file in the state folder (the engine names
 * it). `deferred` (tests only) answers every operation a turn later (store/deferred.ts); unset, the
 * AGENTWIRE_TEST_STORE variable decides.
 */
export type StoreConfig = { engine: 'sqlite'; stateDir: string; deferred?: boolean };

/** The store of a state folder (`AGENTWIRE_HOME`): SQLite until the config can name another engine. */
export function storeConfigFor(paths: { home: string }): StoreConfig {
  return { engine: 'sqlite', stateDir: paths.home };
}

/** Opens (creating private and migrating) the store. Rejects with a StoreError when it cannot. */
export async function openStore(config: StoreConfig): Promise<Store> {
  switch (config.engine) {
    case 'sqlite': {
      const sqlite = await import('./sqlite/open.js');
      return sqlite.openSqliteStore(sqlite.sqliteFile(config.stateDir), config.deferred);
    }
  }
}

/** The engine's answers about the store itself (store/admin.ts); opens nothing until asked. */
export async function storeAdmin(config: StoreConfig): Promise<StoreAdmin> {
  switch (config.engine) {
    case 'sqlite': {
      const sqlite = await import('./sqlite/admin.js');
      return sqlite.sqliteAdmin(config.stateDir);
    }
  }
}

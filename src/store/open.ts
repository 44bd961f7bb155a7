// Opens the store and picks its engine from the store config: the one door composition roots
// (relay.ts, send-once.ts, a CLI command) go through. The engine is loaded by dynamic import, only
// when chosen, so this file and everything else at the top of src/store/ import no engine: what
// callers may count on is the contract (store/store.ts, store/queue-ops.ts, store/admin.ts).
import { pgEnvNote } from '../config/pg-env.js';
import type { StoreAdmin } from './admin.js';
import { StoreError, storeFailure } from './errors.js';
import type { Store } from './store.js';

export type { Store, WhatsAppStore } from './store.js';

/**
 * Which engine, and where its store is. SQLite keeps one file in the state folder (the engine names
 * it). `deferred` (tests only) answers every operation a turn later (store/deferred.ts); unset, the
 * AGENTWIRE_TEST_STORE variable decides. PostgreSQL is the database at `url` (a secret: it may hold
 * a password), shared by every relay process configured with it (docs/scale-out.md).
 */
export type StoreConfig =
  | { engine: 'sqlite'; stateDir: string; deferred?: boolean }
  /** `from`: " (from PGHOST, PGUSER)" when the URL was made of PostgreSQL's variables (config/pg-env.ts). */
  | { engine: 'postgres'; url: string; from?: string };

/** The config's `store` section, as far as choosing the engine goes (config/schema-store.ts). */
export interface StoreSettings {
  engine: 'sqlite' | 'postgres';
  url?: string;
}

/** How long opening a PostgreSQL connection may take before the store answers `unavailable`. */
const PG_CONNECT_TIMEOUT_MS = 10_000;

/**
 * The store of a state folder (`AGENTWIRE_HOME`) under the config's `store` section: SQLite in the
 * folder by default. Every command that opens the store (relay, chat, send, status, doctor, backup)
 * comes here, so they all open the one the relay uses.
 */
export function storeConfigFor(
  paths: { home: string },
  store?: StoreSettings,
  env: NodeJS.ProcessEnv = process.env,
): StoreConfig {
  if (store?.engine !== 'postgres') return { engine: 'sqlite', stateDir: paths.home };
  // The config refuses a PostgreSQL store without a URL (config/schema-store.ts): this is a bug.
  if (!store.url)
    throw new StoreError(storeFailure('other', "store.engine is 'postgres' but store.url is not set"));
  const from = pgEnvNote(store.url, env);
  return { engine: 'postgres', url: store.url, ...(from && { from }) };
}

/** Opens (creating private and migrating) the store. Rejects with a StoreError when it cannot. */
export async function openStore(config: StoreConfig): Promise<Store> {
  switch (config.engine) {
    case 'sqlite': {
      const sqlite = await import('./sqlite/open.js');
      return sqlite.openSqliteStore(sqlite.sqliteFile(config.stateDir), config.deferred);
    }
    case 'postgres': {
      const pg = await import('./postgres/store.js');
      try {
        return await pg.openPostgresStore(config.url, { connectionTimeoutMillis: PG_CONNECT_TIMEOUT_MS });
      } catch (err) {
        // The driver's words name a socket or an address, not which setting: say where, without the password.
        if (!(err instanceof StoreError) || err.reason !== 'unavailable') throw err;
        const { safeUrl } = await import('./postgres/admin.js');
        throw new StoreError(
          storeFailure(
            'unavailable',
            `The store's database at ${safeUrl(config.url)}${config.from ?? ''} cannot be reached (${err.message}); start PostgreSQL or fix ${config.from ? 'those variables' : 'store.url'}.`,
          ),
        );
      }
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
    case 'postgres': {
      const pg = await import('./postgres/admin.js');
      const admin = pg.postgresAdmin(config.url, { connectionTimeoutMillis: PG_CONNECT_TIMEOUT_MS });
      // Where the URL came from, when not from the config or AGENTWIRE_STORE_URL (never a password).
      return config.from ? { ...admin, where: `${admin.where}${config.from}` } : admin;
    }
  }
}

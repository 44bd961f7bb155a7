// The SQLite engine's store: every port over one database file through node:sqlite, or (tests only)
// the same behind the deferred wrapper that answers every operation a turn later (store/deferred.ts).
// Callers outside src/store/ reach it through openStore (store/open.ts), which picks the engine; what
// they may count on is the contract in store/store.ts and store/queue-ops.ts. No database handle,
// statement or SQLite error code leaves src/store/.
import { join } from 'node:path';

import { deferredStore, deferredWanted } from '../deferred.js';
import { StoreError } from '../errors.js';
import type { Store } from '../store.js';

export type { Store, WhatsAppStore } from '../store.js';

import { incidentStore } from './alert-incidents.js';
import { channelStateStore } from './channel-state.js';
import { type Db, openDb } from './db.js';
import { eventStore } from './events.js';
import { interactionStore } from './interactions.js';
import { jobStateStore } from './job-states.js';
import { mediaLinkStore } from './media-links.js';
import { rowsForKey, unsentFilePaths } from './outbox.js';
import { ownershipStore } from './ownership-sqlite.js';
import { sqliteQueueOps } from './queue-sqlite.js';
import { pruneStore } from './retention.js';
import { ALL_MIGRATIONS } from './schema.js';
import { guarded, sqliteFailure } from './sqlite-errors.js';
import { statusReader } from './status-read.js';
import { taskStore } from './tasks.js';
import { twilioSendStore } from './twilio-sends.js';
import { whatsappAuthStore } from './whatsapp-auth.js';
import { whatsappChatStore, whatsappSentStore } from './whatsapp-messages.js';

/**
 * The ports over an already open database (tests, and `openStore`). Every operation rejects with a
 * StoreError (store/errors.ts): a full disk is `{reason: 'full', retryable: true}`, never a code.
 */
export function storeOver(db: Db, engine: StoreEngine = defaultEngine()): Store {
  const store = sqliteStore(db);
  return engine === 'deferred' ? deferredStore(store) : store;
}

/** `deferred`: SQLite with every operation answered a turn later (store/deferred.ts; tests only). */
export type StoreEngine = 'sqlite' | 'deferred';

const defaultEngine = (): StoreEngine => (deferredWanted() ? 'deferred' : 'sqlite');

function sqliteStore(db: Db): Store {
  return {
    whatsapp: {
      auth: guarded(whatsappAuthStore(db)),
      sent: guarded(whatsappSentStore(db)),
      chats: guarded(whatsappChatStore(db)),
    },
    twilio: guarded(twilioSendStore(db)),
    mediaLinks: guarded(mediaLinkStore(db)),
    incidents: guarded(incidentStore(db)),
    jobStates: guarded(jobStateStore(db)),
    tasks: guarded(taskStore(db)),
    events: guarded(eventStore(db)),
    interactions: guarded(interactionStore(db)),
    status: guarded(statusReader(db)),
    ...guarded({
      unsentFiles: async () => unsentFilePaths(db),
      repliesFor: async (key: string) =>
        rowsForKey(db, key).map((r) => ({ status: r.status, error: r.error })),
      pruneOldMessages: async (now: number, days: number) => pruneStore(db, now, days),
      close: async () => db.close(),
    }),
    queue: sqliteQueueOps(db),
    ownership: guarded(ownershipStore(db, SCHEMA_VERSION)),
    channelState: (channel: string) => guarded(channelStateStore(db, channel)),
  };
}

/** The schema this code knows, as one number (every module's steps): the process registry shows it. */
const SCHEMA_VERSION = ALL_MIGRATIONS.reduce((n, m) => n + m.steps.length, 0);

/** The database file of a state folder: the one place its name is written. */
export function sqliteFile(stateDir: string): string {
  return join(stateDir, 'agentwire.db');
}

/**
 * Opens (creating with mode 0600, and migrating) the store file; `:memory:` for a throwaway one.
 * `deferred` (tests only) wraps it in the deferred engine; unset, AGENTWIRE_TEST_STORE decides.
 */
export async function openSqliteStore(file: string, deferred?: boolean): Promise<Store> {
  const engine: StoreEngine = deferred === undefined ? defaultEngine() : deferred ? 'deferred' : 'sqlite';
  let db: Db;
  try {
    db = openDb(file, ALL_MIGRATIONS);
  } catch (err) {
    // Opening fails in the store's words too (a folder not writable, a full disk, a newer schema's
    // sentence as the message): no node:sqlite error leaves src/store/, not even from the opening.
    throw new StoreError(sqliteFailure(err));
  }
  return storeOver(db, engine);
}

// What is asked of a store's engine about the store itself, not through a relay's operations: where
// it is, which files of this machine hold it, what `status` and `doctor` read while no relay runs, and
// a consistent copy (`agentwire backup`). Engine-free: each engine answers in its own way (SQLite:
// store/sqlite/admin.ts). Nothing outside src/store/ names a file of the database; it asks here.
import type { StatusFacts } from './status-read.js';
import type { StoredCreds } from './whatsapp-auth.js';

export type BackupResult = { ok: true; bytes: number } | { ok: false; error: string };

/** What a database server says about itself (doctor's store check); SQLite has no server to ask. */
export type StoreHealth =
  | {
      reachable: true;
      /** The server's own version string, e.g. `PostgreSQL 15.8`. */
      server: string;
      /** The schema's version (the sum of every module's steps); 0 for an empty database. */
      schemaVersion: number;
      /** The newest this code knows. */
      knownVersion: number;
    }
  | { reachable: false; error: string };

export interface StoreAdmin {
  /** Where the store is, for a person to read (SQLite: its file). Never holds a secret. */
  readonly where: string;
  /**
   * The files on this machine that hold the store's data (credentials, messages), those that exist
   * now: doctor checks they are private. SQLite: the database and its `-wal` and `-shm` files.
   */
  localFiles(): string[];
  /** What `status` shows while no relay runs: read only, never created or migrated; undefined when there is no readable store. */
  statusFacts(): Promise<StatusFacts | undefined>;
  /** WhatsApp's stored creds, read only; `unreadable` when the store exists but cannot be read. */
  whatsappCreds(): Promise<StoredCreds | undefined | 'unreadable'>;
  /** One value a channel (or the warm pool) keeps in its namespace, read only; undefined when absent or unreadable. */
  channelValue(channel: string, key: string): Promise<string | undefined>;
  /** A consistent copy at `dest` (created 0600, never overwritten), safe while relays use the store. */
  backup(dest: string): Promise<BackupResult>;
  /** A database server's answers (reachable, its version, the schema's); absent for an embedded engine. */
  health?(): Promise<StoreHealth>;
}

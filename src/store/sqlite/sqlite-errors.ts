// What node:sqlite's errors mean in the store's words (store/errors.ts): the one table of SQLite
// result codes. Nothing outside the SQLite engine reads an `errcode`.
import { guarded as guardedBy, type StoreFailure, type StoreFailureReason, storeFailure } from '../errors.js';
import { FenceConflict } from '../ownership.js';

// SQLite primary result codes (the low byte of an extended code); BUSY_SNAPSHOT (an extended BUSY)
// is a read transaction that lost to a writer, the engine's serialisation failure.
const SQLITE_BUSY_SNAPSHOT = 5 | (2 << 8);
const PRIMARY: Record<number, StoreFailureReason> = {
  5: 'busy', // SQLITE_BUSY
  6: 'busy', // SQLITE_LOCKED
  8: 'unavailable', // SQLITE_READONLY: the file or its folder is not writable
  10: 'io', // SQLITE_IOERR
  13: 'full', // SQLITE_FULL (also max_page_count reached)
  14: 'unavailable', // SQLITE_CANTOPEN
};
const ERRNO: Record<string, StoreFailureReason> = {
  ENOSPC: 'full',
  EDQUOT: 'full',
  EIO: 'io',
  EROFS: 'unavailable',
  EACCES: 'unavailable',
};

/** The failure a node:sqlite (or file system) error means. */
export function sqliteFailure(err: unknown): StoreFailure {
  // A fence that no longer holds: the store's own refusal, never retried.
  if (err instanceof FenceConflict) return err.failure;
  const e = err as { code?: unknown; errcode?: unknown; message?: unknown } | undefined;
  const code = typeof e?.errcode === 'number' ? e.errcode : undefined;
  const reason =
    (code === SQLITE_BUSY_SNAPSHOT ? 'conflict' : code !== undefined ? PRIMARY[code & 0xff] : undefined) ??
    (typeof e?.code === 'string' ? ERRNO[e.code] : undefined) ??
    'other';
  const message = typeof e?.message === 'string' ? e.message : String(err);
  return storeFailure(reason, message);
}

/** The port, each of whose operations rejects with a StoreError instead of node:sqlite's error. */
export function guarded<T extends object>(port: T): T {
  return guardedBy(port, sqliteFailure);
}

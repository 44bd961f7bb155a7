// What the PostgreSQL engine's failures mean in the store's words (store/errors.ts): SQLSTATE codes
// and the socket errors of node-postgres become a reason and a retryable flag; no code leaves here.
import { StoreError, type StoreFailure, type StoreFailureReason, storeFailure } from '../errors.js';
import { FenceConflict } from '../ownership.js';

/**
 * The SQLSTATE a server-side function's fence check raises (postgres/functions.ts), with the lease as
 * it is in DETAIL; postgres/call.ts reads it back as the FenceConflict the TypeScript check throws.
 */
export const FENCE_REFUSED = 'AWF01';

/** By SQLSTATE; classes (the first two characters) after exact codes. */
const BY_CODE: Record<string, StoreFailureReason> = {
  '40001': 'conflict', // serialization_failure
  '40P01': 'conflict', // deadlock_detected
  '55P03': 'busy', // lock_not_available
  '57014': 'busy', // query_canceled (a statement timeout)
  '53100': 'full', // disk_full
  '58030': 'io', // io_error
  XX001: 'io', // data_corrupted
  XX002: 'io', // index_corrupted
  '25006': 'unavailable', // read_only_sql_transaction (a standby)
  '57P01': 'unavailable', // admin_shutdown
  '57P02': 'unavailable', // crash_shutdown
  '57P03': 'unavailable', // cannot_connect_now
};
const BY_CLASS: Record<string, StoreFailureReason> = {
  '08': 'unavailable', // connection exceptions
  '53': 'unavailable', // insufficient resources (too many connections, out of memory)
};
/** Socket errors: the server cannot be reached now. */
const SOCKET = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOENT',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

export function pgReason(err: unknown): StoreFailureReason {
  const code = (err as { code?: unknown } | undefined)?.code;
  if (typeof code !== 'string') {
    // node-postgres says so in words when the server went away mid-query.
    return /Connection terminated|connection timeout/i.test(String((err as Error)?.message))
      ? 'unavailable'
      : 'other';
  }
  if (SOCKET.has(code)) return 'unavailable';
  return BY_CODE[code] ?? BY_CLASS[code.slice(0, 2)] ?? 'other';
}

/** A failure of the store from whatever an operation threw (a fence refusal keeps its own). */
export function pgFailure(err: unknown): StoreFailure {
  if (err instanceof FenceConflict) return err.failure;
  if (err instanceof StoreError) return err.failure;
  return storeFailure(pgReason(err), err instanceof Error ? err.message : String(err));
}

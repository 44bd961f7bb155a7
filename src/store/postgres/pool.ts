// The PostgreSQL engine's connection pool (one per process) and its transactions. BIGINT columns
// (every millisecond timestamp, every id, count(*)) come back as JS numbers, not strings: the parser
// is set on this pool's clients only, so no other user of `pg` in the process is changed.
import { createHash } from 'node:crypto';
import pg from 'pg';

export type Pool = pg.Pool;
export type Client = pg.PoolClient;
/** A pool (one statement, its own transaction) or a client inside a transaction. */
export type Queryable = Pick<pg.ClientBase, 'query'>;

const INT8_OID = 20;

/** BIGINT as a number: every value the store keeps in one (ms times, ids, counts) is below 2^53. */
const getTypeParser = ((oid: number, format?: string) =>
  oid === INT8_OID && format !== 'binary'
    ? (v: string) => Number(v)
    : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser;

export interface PoolOptions {
  /** Connections this process keeps at most (default 10). */
  max?: number;
  /** How long opening a connection may take before it fails (default: no limit, node-postgres's). */
  connectionTimeoutMillis?: number;
}

export function openPool(url: string, opts: PoolOptions = {}): Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: opts.max ?? 10,
    ...(opts.connectionTimeoutMillis !== undefined && {
      connectionTimeoutMillis: opts.connectionTimeoutMillis,
    }),
    application_name: 'agentwire',
    types: { getTypeParser },
  });
  // An idle connection the server dropped is reported here; without a listener Node would end the
  // process. The pool replaces it, and an operation that needed it fails with its own error.
  pool.on('error', () => undefined);
  // The same for a connection checked out when the server goes away (a transaction in flight): its
  // client emits 'error' too, and with no listener that ends the process; the operation on it
  // rejects with the error anyway, and the store answers `unavailable`.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/** The session's lock key for `name` (a 64-bit hash), as a literal that can go in the BEGIN. */
export function lockKey(name: string): string {
  return createHash('sha256').update(name).digest().readBigInt64BE(0).toString();
}

/** A transaction's serialisation failure or deadlock: the whole transaction may run again. */
export const RETRIED = new Set(['40001', '40P01']);
export const ATTEMPTS = 3;

// Per pool, the last transaction started under each lock name. A pool runs transactions on several
// connections at once, so two operations called one after the other without waiting (two messages
// of a chat accepted back to back) could take the chat's lock in either order; the store contract
// says they run in call order, as over one connection. Each waits for those called before it that
// share a lock name: only operations the database would serialise anyway are ordered.
const tails = new WeakMap<Pool, Map<string, Promise<void>>>();

function inCallOrder<T>(pool: Pool, names: readonly string[], fn: () => Promise<T>): Promise<T> {
  if (names.length === 0) return fn();
  let byName = tails.get(pool);
  if (!byName) {
    byName = new Map();
    tails.set(pool, byName);
  }
  const map = byName;
  const before = names.flatMap((n) => map.get(n) ?? []);
  const run = Promise.all(before).then(fn);
  const done = run.then(
    () => undefined,
    () => undefined,
  );
  for (const n of names) map.set(n, done);
  void done.then(() => {
    for (const n of names) if (map.get(n) === done) map.delete(n);
  });
  return run;
}

/**
 * Runs `fn` in one READ COMMITTED transaction holding the transaction-scoped locks `locks` (taken in
 * the same round trip as BEGIN, sorted, so two transactions never take two of them in opposite
 * orders). What `fn` reads and writes under a lock is serialised with every other holder of it, and
 * this process's operations under one lock start in the order they were called.
 * A deadlock or serialisation failure runs the whole transaction again (callbacks are pure).
 */
export function inTx<T>(pool: Pool, locks: readonly string[], fn: (c: Client) => Promise<T>): Promise<T> {
  const names = [...new Set(locks)].sort();
  return inCallOrder(pool, names, () => attempt(pool, names, fn));
}

/**
 * Runs `fn` (one statement or function call, its own transaction) in call order with this pool's
 * other operations under `locks`, as `inTx` does: for an operation folded into one round trip.
 */
export function inOrder<T>(pool: Pool, locks: readonly string[], fn: () => Promise<T>): Promise<T> {
  return inCallOrder(pool, [...new Set(locks)].sort(), fn);
}

/** `inTx` without the call order: for inside `inOrder` under the same names (it would wait on itself). */
export function inTxUnordered<T>(
  pool: Pool,
  locks: readonly string[],
  fn: (c: Client) => Promise<T>,
): Promise<T> {
  return attempt(pool, [...new Set(locks)].sort(), fn);
}

async function attempt<T>(pool: Pool, names: readonly string[], fn: (c: Client) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const client = await pool.connect();
    let broken: Error | undefined;
    try {
      const keys = names.map(lockKey);
      await client.query(`BEGIN; ${keys.map((k) => `SELECT pg_advisory_xact_lock(${k});`).join(' ')}`);
      const out = await fn(client);
      await client.query('COMMIT');
      return out;
    } catch (err) {
      await client.query('ROLLBACK').catch((e: Error) => {
        broken = e;
      });
      const code = (err as { code?: string }).code;
      if (!broken && attempt < ATTEMPTS && code && RETRIED.has(code)) continue;
      throw err;
    } finally {
      client.release(broken);
    }
  }
}

/**
 * Takes more locks inside a transaction already begun, sorted: for an operation that learns its
 * chats only by reading (an interaction's chat). It must hold no lock of the same kind yet.
 */
export async function lockMore(c: Queryable, names: readonly string[]): Promise<void> {
  const keys = [...new Set(names)].sort().map(lockKey);
  if (keys.length > 0) await c.query(keys.map((k) => `SELECT pg_advisory_xact_lock(${k});`).join(' '));
}

/** The lock every write that reads a chat's messages or lease takes first. */
export const chatLock = (chat: string) => `chat:${chat}`;
/** The lock of a session scope (its generation and rows; chats may share the global scope). */
export const scopeLock = (scope: string) => `scope:${scope}`;

/** The database's clock in milliseconds: leases are timed by it, never by a host's own clock. */
export const DB_NOW_MS = '(extract(epoch from clock_timestamp()) * 1000)::bigint';

// The embedded store: SQLite through node:sqlite in WAL mode. Each module owns its tables and
// declares its own numbered migrations, so modules never edit a shared list.
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { StoreError, storeFailure } from '../errors.js';
import { sqliteFailure } from './sqlite-errors.js';

export type Db = DatabaseSync;

export interface Migration {
  /** Module name, e.g. `inbox`; versions count per module. */
  module: string;
  /** SQL for versions 1..n in order; never edit a released step, append a new one. */
  steps: readonly string[];
}

/** Opens (creating with mode 0600) the database file and applies every pending migration. */
export function openDb(file: string, migrations: readonly Migration[]): Db {
  if (file !== ':memory:') {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
    chmodSync(file, 0o600);
  }
  const db = new DatabaseSync(file);
  cacheStatements(db);
  // busy_timeout first: switching a fresh file to WAL takes a lock another process may hold.
  db.exec('PRAGMA busy_timeout = 5000');
  try {
    toWal(db);
  } catch (err) {
    db.close();
    throw err;
  }
  db.exec('PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;');
  try {
    migrate(db, migrations);
  } catch (err) {
    db.close();
    throw err;
  }
  for (const suffix of ['-wal', '-shm'])
    if (file !== ':memory:' && existsSync(file + suffix)) chmodSync(file + suffix, 0o600);
  return db;
}

const WAL_TRIES_MS = 5000;

/**
 * Switches the file to WAL, trying again while another process is in the way. The switch reads
 * the file, then needs it alone; two processes doing that at once would each wait for the other, so
 * SQLite fails one of them at once ("database is locked") instead of waiting out busy_timeout. A
 * test opening a fresh file from six processes at once hit it once in a full `npm test`. Synchronous,
 * as opening is; the failed statement has let go of its read, so the other one gets through.
 */
function toWal(db: Db): void {
  const end = Date.now() + WAL_TRIES_MS;
  for (;;) {
    try {
      db.exec('PRAGMA journal_mode = WAL');
      return;
    } catch (err) {
      if (sqliteFailure(err).reason !== 'busy' || Date.now() >= end) throw err;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10 + Math.random() * 40);
    }
  }
}

/** The one sentence a store written by a newer agentwire is refused with. */
export function newerSchema(module: string, found: number, known: number): string {
  return (
    `The store was written by a newer agentwire: its ${module} tables are at schema version ${found}, ` +
    `and this agentwire knows version ${known} at most; upgrade agentwire to open it.`
  );
}

export function migrate(db: Db, migrations: readonly Migration[]): void {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (module TEXT PRIMARY KEY, version INTEGER NOT NULL)');
  const get = db.prepare('SELECT version FROM schema_migrations WHERE module = ?');
  const set = db.prepare(
    'INSERT INTO schema_migrations (module, version) VALUES (?, ?) ON CONFLICT(module) DO UPDATE SET version = excluded.version',
  );
  const version = (module: string) => (get.get(module) as { version: number } | undefined)?.version ?? 0;
  // A newer agentwire may have changed a table in a way this code would misread or undo: refuse the
  // file before writing anything rather than open it silently.
  for (const m of migrations) {
    const found = version(m.module);
    if (found > m.steps.length)
      throw new StoreError(storeFailure('other', newerSchema(m.module, found, m.steps.length)));
  }
  for (const m of migrations) {
    for (let v = version(m.module); v < m.steps.length; v++) {
      transaction(db, () => {
        // Read again under the write lock: another process opening the same file may have just
        // applied this step (a relay and `agentwire chat` starting together).
        if (version(m.module) > v) return;
        db.exec(m.steps[v] as string);
        set.run(m.module, v + 1);
      });
    }
  }
}

// Compiled statements per connection, by SQL text. Compiling a statement costs several times more
// than running the small indexed statements of the message path, and that path runs about twenty
// per message (bench/relay-overhead, docs/performance.md). node:sqlite resets a statement after
// each run/get/all, so one compiled statement serves every caller; SQLite recompiles it by itself
// after a schema change. Only fixed SQL texts may be passed (the cache is not bounded).
const statements = new WeakMap<Db, Map<string, StatementSync>>();

/**
 * Lets `prepared` keep compiled statements for `db` until it is closed. A statement holds its
 * connection alive in node:sqlite, so a cache that outlived `close()` would keep every closed
 * connection in memory.
 */
function cacheStatements(db: Db): void {
  statements.set(db, new Map());
  const close = db.close.bind(db);
  db.close = () => {
    statements.delete(db);
    close();
  };
}

/**
 * `db.prepare(sql)`, compiled once per connection opened by `openDb` (other connections, such as
 * the read-only ones of `status`, compile per call). Not for `iterate()`: an open cursor holds it.
 */
export function prepared(db: Db, sql: string): StatementSync {
  const byText = statements.get(db);
  if (!byText) return db.prepare(sql);
  let st = byText.get(sql);
  if (!st) {
    st = db.prepare(sql);
    byText.set(sql, st);
  }
  return st;
}

/**
 * Runs `fn`, which only reads, in one snapshot (a deferred BEGIN): the reads agree with each other
 * even while another process writes, and no write lock is taken (a run reads its session this way).
 */
export function readTransaction<T>(db: Db, fn: () => T): T {
  prepared(db, 'BEGIN').run();
  try {
    return fn();
  } finally {
    prepared(db, 'COMMIT').run();
  }
}

/** Runs `fn` in a transaction (BEGIN IMMEDIATE, so writers queue instead of failing midway). */
export function transaction<T>(db: Db, fn: () => T): T {
  // Compiled once like any other statement: the message path commits three to four times.
  prepared(db, 'BEGIN IMMEDIATE').run();
  try {
    const out = fn();
    prepared(db, 'COMMIT').run();
    return out;
  } catch (err) {
    // SQLite rolls back by itself on some errors (SQLITE_FULL, SQLITE_IOERR); a second ROLLBACK
    // would then throw and hide the original error.
    try {
      db.exec('ROLLBACK');
    } catch {
      // already rolled back by SQLite
    }
    throw err;
  }
}

// Migrations of the PostgreSQL engine: numbered steps per module, like the SQLite engine's
// (store/sqlite/db.ts), in their own list (postgres/schema.ts): the two engines' tables differ in types.
// Every pending step of every module is applied in one transaction under one lock, so processes
// starting together on one database migrate it once, and a failed step leaves nothing half done.
import { StoreError, storeFailure } from '../errors.js';
import { inTx, type Pool } from './pool.js';

export interface PgMigration {
  module: string;
  /** SQL for versions 1..n in order; never edit a released step, append a new one. */
  steps: readonly string[];
}

/** The one sentence a database written by a newer agentwire is refused with. */
export function newerSchema(module: string, found: number, known: number): string {
  return (
    `The store was written by a newer agentwire: its ${module} tables are at schema version ${found}, ` +
    `and this agentwire knows version ${known} at most; upgrade agentwire to open it.`
  );
}

export async function migrate(pool: Pool, migrations: readonly PgMigration[]): Promise<void> {
  await inTx(pool, ['migrate'], async (c) => {
    await c.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (module TEXT PRIMARY KEY, version INTEGER NOT NULL)',
    );
    const rows = (
      await c.query<{ module: string; version: number }>('SELECT module, version FROM schema_migrations')
    ).rows;
    const found = new Map(rows.map((r) => [r.module, r.version]));
    // A newer agentwire may have changed a table in a way this code would misread or undo: refuse
    // the database before writing anything rather than open it silently.
    for (const m of migrations) {
      const v = found.get(m.module) ?? 0;
      if (v > m.steps.length)
        throw new StoreError(storeFailure('other', newerSchema(m.module, v, m.steps.length)));
    }
    for (const m of migrations) {
      const from = found.get(m.module) ?? 0;
      for (const step of m.steps.slice(from)) await c.query(step);
      if (from < m.steps.length)
        await c.query(
          `INSERT INTO schema_migrations (module, version) VALUES ($1, $2)
           ON CONFLICT (module) DO UPDATE SET version = excluded.version`,
          [m.module, m.steps.length],
        );
    }
  });
}

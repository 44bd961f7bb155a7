// The PostgreSQL engine's answers about its store (store/admin.ts), for `status`, `doctor` and
// `backup` while no relay runs: a short-lived pool of one connection that never creates, migrates or
// writes anything (every read is one READ ONLY snapshot). The database is not a file of this machine,
// so there is nothing for doctor's permission check; a copy is PostgreSQL's own tool's job (pg_dump).
import type { BackupResult, StoreAdmin, StoreHealth } from '../admin.js';
import type { StatusFacts } from '../status-read.js';
import { pgFailure } from './errors.js';
import { openPool, type Pool, type PoolOptions, type Queryable } from './pool.js';
import { PG_SCHEMA_VERSION } from './schema.js';
import { inSnapshot, readPgStatusFacts } from './status-read.js';

/** `postgresql://user@host:port/db`: the URL without its password and query (which may hold one). */
export function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    u.password = '';
    u.search = '';
    u.hash = '';
    return u.toString();
  } catch {
    return 'postgresql://(an unparsable URL)';
  }
}

/** The one sentence `agentwire backup` answers on PostgreSQL. */
export function pgBackupRefusal(url: string): string {
  return (
    `The store is in PostgreSQL (${safeUrl(url)}), which agentwire does not copy itself: ` +
    'back it up with pg_dump, e.g. `pg_dump --format=custom --file=agentwire.dump "$AGENTWIRE_STORE_URL"` ' +
    '(consistent while relays run), and restore it with pg_restore.'
  );
}

/** The schema's version as the registry counts it; 0 before the first migration. */
async function schemaVersion(q: Queryable): Promise<number> {
  const t = await q.query<{ t: string | null }>("SELECT to_regclass('schema_migrations')::text AS t");
  if (!t.rows[0]?.t) return 0;
  const r = await q.query<{ v: number | null }>('SELECT sum(version)::int AS v FROM schema_migrations');
  return r.rows[0]?.v ?? 0;
}

export function postgresAdmin(url: string, opts: PoolOptions = {}): StoreAdmin {
  /** `fn` over a pool of its own, ended after: these commands run once and exit. */
  const withPool = async <T>(fn: (pool: Pool) => Promise<T>): Promise<T> => {
    const pool = openPool(url, { ...opts, max: 1 });
    try {
      return await fn(pool);
    } finally {
      await pool.end().catch(() => undefined);
    }
  };
  /** A read of a migrated database; undefined when it has no tables yet (no relay ever opened it). */
  const read = <T>(fn: (q: Queryable) => Promise<T>): Promise<T | undefined> =>
    withPool((pool) => inSnapshot(pool, async (q) => ((await schemaVersion(q)) === 0 ? undefined : fn(q))));
  return {
    where: safeUrl(url),
    localFiles: () => [],
    statusFacts: async (): Promise<StatusFacts | undefined> => read(readPgStatusFacts).catch(() => undefined),
    whatsappCreds: async () => {
      try {
        const r = await read((q) =>
          q.query<{ data: string; logged_out_at: number | null }>(
            'SELECT data, logged_out_at FROM wa_creds WHERE id = 1',
          ),
        );
        const row = r?.rows[0];
        return row && { data: row.data, loggedOutAt: row.logged_out_at };
      } catch {
        return 'unreadable';
      }
    },
    channelValue: async (channel, key) =>
      read((q) =>
        q.query<{ value: string }>('SELECT value FROM channel_state WHERE channel = $1 AND key = $2', [
          channel,
          key,
        ]),
      ).then(
        (r) => r?.rows[0]?.value,
        () => undefined,
      ),
    backup: async (): Promise<BackupResult> => ({ ok: false, error: pgBackupRefusal(url) }),
    health: async (): Promise<StoreHealth> => {
      try {
        return await withPool((pool) =>
          inSnapshot(pool, async (q) => {
            const v = await q.query<{ v: string }>("SELECT current_setting('server_version') AS v");
            return {
              reachable: true as const,
              server: `PostgreSQL ${v.rows[0]?.v ?? '?'}`,
              schemaVersion: await schemaVersion(q),
              knownVersion: PG_SCHEMA_VERSION,
            };
          }),
        );
      } catch (err) {
        return { reachable: false, error: pgFailure(err).message };
      }
    },
  };
}

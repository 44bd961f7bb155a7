// PostgreSQL's own environment variables (PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE, PGSSLMODE),
// for `store.engine: 'postgres'` when neither store.url nor AGENTWIRE_STORE_URL is set: the way psql,
// pg_dump and node-postgres are pointed at a server, so a deployment that already sets them needs
// nothing more. They are turned into the one URL the store is opened with (config/load.ts), so every
// command names the same server the same way: `doctor`, the relay's "cannot be reached" sentence and
// `config print` show it without its password, and say which variables it came from.
import { userInfo } from 'node:os';

/** The variables read, in the order a person would set them. */
export const PG_ENV = ['PGHOST', 'PGPORT', 'PGDATABASE', 'PGUSER', 'PGPASSWORD', 'PGSSLMODE'] as const;

/** The URL the PG* variables name, and which of them were set; undefined when none of them is. */
export function pgEnvUrl(
  env: NodeJS.ProcessEnv,
  osUser: () => string = () => userInfo().username,
): { url: string; used: string[] } | undefined {
  const used = PG_ENV.filter((k) => env[k]);
  // Only the password or the SSL mode says nothing about which server: not enough to pick one.
  if (!used.some((k) => k === 'PGHOST' || k === 'PGPORT' || k === 'PGDATABASE' || k === 'PGUSER'))
    return undefined;
  const user = env.PGUSER || osUser();
  const host = env.PGHOST || 'localhost';
  const u = new URL('postgresql://placeholder');
  // A host starting with `/` is a Unix socket's folder: the URL carries it encoded (node-postgres and
  // libpq both read `%2Fvar%2Frun%2Fpostgresql` as that folder).
  u.host = host.startsWith('/') ? encodeURIComponent(host) : host;
  if (env.PGPORT) u.port = env.PGPORT;
  u.username = encodeURIComponent(user);
  if (env.PGPASSWORD) u.password = encodeURIComponent(env.PGPASSWORD);
  u.pathname = `/${encodeURIComponent(env.PGDATABASE || user)}`;
  if (env.PGSSLMODE) u.searchParams.set('sslmode', env.PGSSLMODE);
  return { url: u.toString(), used };
}

/** "from PGHOST, PGUSER", for the sentences that name the server (empty when the URL came from elsewhere). */
export function pgEnvNote(url: string, env: NodeJS.ProcessEnv): string {
  const fromEnv = pgEnvUrl(env);
  return fromEnv && fromEnv.url === url ? ` (from ${fromEnv.used.join(', ')})` : '';
}

// `store`: which engine keeps the queue, the outbox and every other durable state (docs/configuration.md,
// "Store"; docs/scale-out.md). SQLite is one file in the state folder; PostgreSQL is a server several
// relay processes may share. The URL carries a password: it is a secret (SECRET_PATHS in schema.ts).
import { isAbsolute } from 'node:path';
import { z } from 'zod';

export const STORE_ENGINES = ['sqlite', 'postgres'] as const;

/** The environment variable `store.url` defaults to, as TWILIO_AUTH_TOKEN does for twilio.authToken. */
export const STORE_URL_ENV = 'AGENTWIRE_STORE_URL';

export const storeSchema = z
  .object({
    engine: z
      .enum(STORE_ENGINES)
      .default('sqlite')
      .describe(
        '`sqlite` (default): one file in the state folder. `postgres`: a PostgreSQL database several relay processes may share (docs/scale-out.md).',
      ),
    url: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgresql:// URL (postgresql://user:password@host:5432/db)')
      .optional()
      .describe(
        `The PostgreSQL connection URL, for engine \`postgres\`. Default: $${STORE_URL_ENV}, else one made of the PG* variables (PGHOST, PGPORT, PGDATABASE, PGUSER, PGPASSWORD, PGSSLMODE). Secret.`,
      ),
    sharedFolder: z
      .string()
      .refine(isAbsolute, 'must be an absolute path (the same on every machine)')
      .optional()
      .describe(
        'A folder every relay process on this database reaches at the same absolute path (NFS, EFS, a shared volume): received files, files waiting to be sent and files served by URL live under its `media/`, so a chat that moves to another process finds them. Default: the state folder (one machine).',
      ),
    sharedAgentState: z
      .boolean()
      .optional()
      .describe(
        "Default false. True when the agents' session files (the CLIs' own folders and the workspace) are on storage every process reaches at the same paths: a chat that moves to another process then resumes its session there instead of starting a fresh one (docs/scale-out.md).",
      ),
  })
  .strict();

export type StoreSettings = z.infer<typeof storeSchema>;

/**
 * Checked after the environment defaults are applied (config/load.ts): a PostgreSQL store needs its
 * URL, from the file or the environment. A URL beside SQLite is left alone (switching back and forth
 * between engines need not delete it).
 */
export function storeProblems(s: StoreSettings): { path: string[]; message: string }[] {
  if (s.engine === 'postgres' && !s.url)
    return [
      {
        path: ['store', 'url'],
        message: `required when store.engine is 'postgres': a postgresql:// URL, or set ${STORE_URL_ENV} or PostgreSQL's own PGHOST, PGPORT, PGDATABASE, PGUSER, PGPASSWORD`,
      },
    ];
  return [];
}

/** The secrets in the store settings, for the log's redaction: the URL and the password inside it. */
export function storeSecrets(s: StoreSettings): string[] {
  if (!s.url) return [];
  let password = '';
  try {
    password = decodeURIComponent(new URL(s.url).password);
  } catch {
    // Not parsable as a URL: the whole string is still masked.
  }
  return [s.url, ...(password ? [password] : [])];
}

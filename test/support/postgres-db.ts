// A database of its own for one test, in the run's throwaway cluster (test/setup/postgres.ts):
// created empty, dropped (closing whatever still uses it) when the test or suite that made it ends.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, inject, onTestFinished } from 'vitest';

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client(inject('pgUrl'));
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** The rows of one query on `url`, on a connection of its own (closed after). */
export async function queryRows<T>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const c = new pg.Client(url);
  await c.connect();
  try {
    return (await c.query(sql, params)).rows as T[];
  } finally {
    await c.end();
  }
}

/** A URL naming `database` in the cluster of `url`. */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** A new empty database; its URL. Removed when the current test (or, outside one, suite) ends. */
export async function freshDatabase(): Promise<string> {
  const name = `aw_${randomBytes(6).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE ${name}`));
  const drop = () =>
    admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined);
  try {
    onTestFinished(drop);
  } catch {
    afterAll(drop);
  }
  return withDatabase(inject('pgUrl'), name);
}

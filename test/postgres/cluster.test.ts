// The PostgreSQL test rig itself (test/support/postgres.ts, test/setup/postgres.ts): each test gets
// an empty database of its own in the run's throwaway cluster, which listens on a Unix socket only
// and, when the tests run as root (this machine, CI), runs as another user, since initdb refuses root.
import { statSync } from 'node:fs';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { freshDatabase } from '../support/postgres-db.js';

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const c = new pg.Client(url);
  await c.connect();
  try {
    return (await c.query<T>(sql)).rows;
  } finally {
    await c.end();
  }
}

describe('the PostgreSQL test cluster', () => {
  it('gives each test an empty database of its own', async () => {
    const [a, b] = [await freshDatabase(), await freshDatabase()];
    expect(a).not.toBe(b);
    await query(a, 'CREATE TABLE only_in_a (x INT)');
    const tables = (url: string) =>
      query<{ n: number }>(url, "SELECT count(*)::int AS n FROM pg_tables WHERE tablename = 'only_in_a'");
    expect(await tables(a)).toEqual([{ n: 1 }]);
    expect(await tables(b)).toEqual([{ n: 0 }]);
  });

  it('listens on a socket in its temp folder, never on TCP, and not as root', async () => {
    const [row] = await query<{ dir: string; listen: string; data: string }>(
      inject('pgUrl'),
      `SELECT current_setting('unix_socket_directories') AS dir, current_setting('listen_addresses') AS listen,
              current_setting('data_directory') AS data`,
    );
    expect(row?.listen).toBe('');
    expect(decodeURIComponent(new URL(inject('pgUrl')).host)).toBe(row?.dir);
    expect(statSync(row?.data ?? '').uid).not.toBe(0);
  });
});

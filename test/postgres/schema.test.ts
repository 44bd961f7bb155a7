// The PostgreSQL engine's schema: millisecond times and ids come back as numbers (BIGINT columns,
// read through the pool's own type parser), and a database a newer agentwire migrated is refused in
// one sentence, before anything is written to it.
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { StoreError } from '../../src/store/errors.js';
import type { Store } from '../../src/store/open.js';
import { newerSchema } from '../../src/store/postgres/migrate.js';
import { PG_MIGRATIONS } from '../../src/store/postgres/schema.js';
import { openPostgresStore } from '../../src/store/postgres/store.js';
import { inbound } from '../store/helpers.js';
import { freshDatabase } from '../support/postgres-db.js';

const opened: Store[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close().catch(() => undefined);
});
const open = async (url: string) => {
  const s = await openPostgresStore(url);
  opened.push(s);
  return s;
};

async function sql<T extends pg.QueryResultRow>(
  url: string,
  text: string,
  params: unknown[] = [],
): Promise<T[]> {
  const c = new pg.Client(url);
  await c.connect();
  try {
    return (await c.query<T>(text, params)).rows;
  } finally {
    await c.end();
  }
}

describe('the PostgreSQL schema', () => {
  it('reads millisecond times and ids back as the numbers written, past 2^31 and up to the last Date', async () => {
    const s = await open(await freshDatabase());
    // The last millisecond a Date can hold, and a time past 2^32 seconds' worth of ms.
    const late = 8_640_000_000_000_000;
    const now = 4_294_967_296_123;
    const r = await s.queue.acceptInbound(inbound({ messageId: 'big', at: late }), { now, maxPending: 5 });
    if (!r.ok || r.value.type !== 'stored') throw new Error(JSON.stringify(r));
    const row = await s.queue.message(r.value.id);
    expect(row).toMatchObject({ id: r.value.id, sentAt: late, receivedAt: now, tries: 0 });
    expect(typeof row?.sentAt).toBe('number');
    expect(typeof row?.id).toBe('number');
    expect(await s.queue.countPending('console:local')).toBe(1);
    expect(await s.queue.pendingByChat()).toEqual({ 'console:local': 1 });
  });

  it('refuses a database a newer agentwire migrated, in one sentence, and writes nothing', async () => {
    const url = await freshDatabase();
    await (await open(url)).close();
    const known = PG_MIGRATIONS.find((m) => m.module === 'outbox')?.steps.length ?? 0;
    await sql(url, "UPDATE schema_migrations SET version = $1 WHERE module = 'outbox'", [known + 1]);
    const before = await sql(url, 'SELECT module, version FROM schema_migrations ORDER BY module');
    const err = await openPostgresStore(url).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect(err).toMatchObject({
      reason: 'other',
      retryable: false,
      message: newerSchema('outbox', known + 1, known),
    });
    expect((err as Error).message.split('. ')).toHaveLength(1);
    expect(await sql(url, 'SELECT module, version FROM schema_migrations ORDER BY module')).toEqual(before);
  });

  it('migrates an empty database once when two processes open it at the same time', async () => {
    const url = await freshDatabase();
    const [a, b] = await Promise.all([open(url), open(url)]);
    const rows = await sql<{ module: string; version: number }>(
      url,
      'SELECT module, version FROM schema_migrations',
    );
    expect(rows).toHaveLength(PG_MIGRATIONS.length);
    for (const m of PG_MIGRATIONS) expect(rows).toContainEqual({ module: m.module, version: m.steps.length });
    expect(await a.queue.countUnsent()).toBe(0);
    expect(await b.queue.countUnsent()).toBe(0);
  });

  it('says the server cannot be reached as a retryable `unavailable`', async () => {
    const url = new URL(await freshDatabase());
    url.host = encodeURIComponent('/nonexistent-socket-dir');
    const err = await openPostgresStore(url.toString()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect(err).toMatchObject({ reason: 'unavailable', retryable: true });
  });
});

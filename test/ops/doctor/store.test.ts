// doctor's store check (ops/doctor/store.ts): one finding per answer of the database server; none
// for an engine without a server (SQLite).
import { describe, expect, it } from 'vitest';
import { checkStore, storeFinding } from '../../../src/ops/doctor/store.js';

const WHERE = 'postgresql://aw@db.example.com/agentwire';
const up = (schemaVersion: number) => ({
  reachable: true as const,
  server: 'PostgreSQL 15.8',
  schemaVersion,
  knownVersion: 14,
});

describe('the store check', () => {
  it.each([
    [
      'current',
      up(14),
      'ok',
      'PostgreSQL 15.8 at postgresql://aw@db.example.com/agentwire, schema version 14 (current)',
    ],
    [
      'empty',
      up(0),
      'warn',
      'PostgreSQL 15.8 at postgresql://aw@db.example.com/agentwire is reachable and empty',
    ],
    ['older', up(9), 'warn', 'schema version 9; this agentwire writes 14'],
    ['newer', up(20), 'fail', 'schema version 20, newer than this agentwire knows (14)'],
    [
      'unreachable',
      { reachable: false as const, error: 'connect ECONNREFUSED 10.0.0.5:5432' },
      'fail',
      'cannot be reached: connect ECONNREFUSED',
    ],
  ])('%s', (_name, health, status, message) => {
    const f = storeFinding(WHERE, health);
    expect(f.check).toBe('store');
    expect(f.status).toBe(status);
    expect(f.message).toContain(message);
    if (status !== 'ok') expect(f.fix).toBeTruthy();
  });

  it('says nothing for an engine without a server', async () => {
    expect(await checkStore({ where: '/h/agentwire.db' })).toEqual([]);
  });
});

// PostgreSQL's own PG* variables made into the store's URL (config/pg-env.ts), and through the config
// loader: used only when neither store.url nor AGENTWIRE_STORE_URL is set.
import { describe, expect, it } from 'vitest';
import { pgEnvNote, pgEnvUrl } from '../../src/config/pg-env.js';

const os = () => 'osuser';

describe('pgEnvUrl', () => {
  it.each([
    [{}, undefined],
    // A password alone names no server.
    [{ PGPASSWORD: 'pw' }, undefined],
    [{ PGHOST: 'db.example.com' }, 'postgresql://osuser@db.example.com/osuser'],
    [
      { PGHOST: 'db', PGPORT: '6543', PGUSER: 'aw', PGDATABASE: 'agentwire', PGPASSWORD: 'p@ss:w/rd' },
      'postgresql://aw:p%40ss%3Aw%2Frd@db:6543/agentwire',
    ],
    [{ PGHOST: '/var/run/postgresql', PGDATABASE: 'aw' }, 'postgresql://osuser@%2Fvar%2Frun%2Fpostgresql/aw'],
    [{ PGUSER: 'aw', PGSSLMODE: 'require' }, 'postgresql://aw@localhost/aw?sslmode=require'],
  ])('%j → %s', (env, url) => {
    expect(pgEnvUrl(env, os)?.url).toBe(url);
  });

  it('names the variables it used, never their values', () => {
    const env = { PGHOST: 'db', PGUSER: 'aw', PGPASSWORD: 'secret-pw' };
    expect(pgEnvUrl(env, os)?.used).toEqual(['PGHOST', 'PGUSER', 'PGPASSWORD']);
    const url = pgEnvUrl(env, os)?.url ?? '';
    expect(pgEnvNote(url, env)).toBe(' (from PGHOST, PGUSER, PGPASSWORD)');
    expect(pgEnvNote('postgresql://other@db/aw', env)).toBe('');
  });
});

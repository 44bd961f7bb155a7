// `store` (config/schema-store.ts): SQLite by default; PostgreSQL needs a URL, from the file or from
// AGENTWIRE_STORE_URL, and the URL is a secret kept out of the log (storeSecrets).
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load.js';
import { storeSecrets } from '../../src/config/schema-store.js';
import { storeConfigFor } from '../../src/store/open.js';

const parse = (store: unknown, env: NodeJS.ProcessEnv = {}) =>
  parseConfigText(JSON.stringify({ store }), 'agentwire.json5', env);
const URL_A = 'postgresql://aw:pw-secret-1@db-a.example.com:5432/agentwire';

describe('store settings', () => {
  it('default to SQLite in the state folder', () => {
    const r = parseConfigText('{}', 'agentwire.json5', {});
    expect(r.ok && r.config.store).toEqual({ engine: 'sqlite' });
    expect(r.ok && storeConfigFor({ home: '/h' }, r.config.store)).toEqual({
      engine: 'sqlite',
      stateDir: '/h',
    });
  });

  it('take the PostgreSQL URL from the file, or else from AGENTWIRE_STORE_URL', () => {
    const file = parse({ engine: 'postgres', url: URL_A }, { AGENTWIRE_STORE_URL: 'postgresql://other/x' });
    expect(file.ok && file.config.store.url).toBe(URL_A);
    const env = parse({ engine: 'postgres' }, { AGENTWIRE_STORE_URL: URL_A });
    expect(env.ok && storeConfigFor({ home: '/h' }, env.config.store, {})).toEqual({
      engine: 'postgres',
      url: URL_A,
    });
    // The variable means nothing to a SQLite store.
    const sqlite = parse({ engine: 'sqlite' }, { AGENTWIRE_STORE_URL: URL_A });
    expect(sqlite.ok && sqlite.config.store.url).toBe(undefined);
  });

  it("else from PostgreSQL's own PG* variables, saying so where the server is named", () => {
    const PG = { PGHOST: 'db-b.example.com', PGUSER: 'aw', PGDATABASE: 'agentwire', PGPASSWORD: 'pw-2' };
    const r = parse({ engine: 'postgres' }, PG);
    expect(r.ok && r.config.store.url).toBe('postgresql://aw:pw-2@db-b.example.com/agentwire');
    expect(r.ok && storeConfigFor({ home: '/h' }, r.config.store, PG)).toEqual({
      engine: 'postgres',
      url: 'postgresql://aw:pw-2@db-b.example.com/agentwire',
      from: ' (from PGHOST, PGDATABASE, PGUSER, PGPASSWORD)',
    });
    // The URL, from the file or AGENTWIRE_STORE_URL, comes first.
    const both = parse({ engine: 'postgres' }, { ...PG, AGENTWIRE_STORE_URL: URL_A });
    expect(both.ok && both.config.store.url).toBe(URL_A);
    expect(both.ok && storeConfigFor({ home: '/h' }, both.config.store, PG)).toEqual({
      engine: 'postgres',
      url: URL_A,
    });
    // The password it carries is masked in the log like a URL's.
    expect(r.ok && storeSecrets(r.config.store)).toContain('pw-2');
  });

  it.each([
    [
      'postgres without a URL',
      { engine: 'postgres' },
      'store.url',
      /required when store.engine is 'postgres'.*AGENTWIRE_STORE_URL/,
    ],
    [
      'a URL that is not postgresql://',
      { engine: 'postgres', url: 'mysql://x/y' },
      'store.url',
      /must be a postgresql:\/\/ URL/,
    ],
    ['an unknown engine', { engine: 'mongo' }, 'store.engine', /sqlite|postgres/],
    ['an unknown key', { engine: 'sqlite', pool: 3 }, 'store.pool', /unknown key/],
  ])('refuse %s, naming the key', (_name, store, path, message) => {
    const r = parse(store);
    expect(r.ok).toBe(false);
    const p = r.ok ? undefined : r.problems[0];
    expect(p?.path).toBe(path);
    expect(p?.message).toMatch(message);
  });

  it('name the URL and the password inside it as secrets for the log', () => {
    expect(storeSecrets({ engine: 'postgres', url: URL_A })).toEqual([URL_A, 'pw-secret-1']);
    expect(storeSecrets({ engine: 'postgres', url: 'postgresql://aw@db/x' })).toEqual([
      'postgresql://aw@db/x',
    ]);
    expect(storeSecrets({ engine: 'sqlite' })).toEqual([]);
  });
});

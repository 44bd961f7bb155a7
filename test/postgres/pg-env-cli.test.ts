// `store.engine: 'postgres'` with neither store.url nor AGENTWIRE_STORE_URL: the built CLI reaches the
// server through PostgreSQL's own PG* variables; `doctor` names it and the variables, and a command
// that cannot reach it exits 1 saying which variables it used, never the password.
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Home, MAIN, makeHome, spawnNode } from '../e2e/helpers.js';
import { freshDatabase } from '../support/postgres-db.js';

// The test cluster trusts local connections: the password is only looked for where it must not be.
const PASSWORD = 'pg-env-Secret-5521';
let home: Home;
let pgEnv: NodeJS.ProcessEnv;

function run(args: string[], env: NodeJS.ProcessEnv) {
  const p = spawnNode([MAIN, ...args], env);
  return p.exit.then(({ code }) => ({ code, out: p.stdout(), err: p.stderr() }));
}

beforeAll(async () => {
  expect(existsSync(MAIN), 'build first: npm run build').toBe(true);
  const u = new URL(await freshDatabase());
  pgEnv = {
    PGHOST: decodeURIComponent(u.hostname),
    PGPORT: u.port || '5432',
    PGUSER: decodeURIComponent(u.username),
    PGDATABASE: u.pathname.slice(1),
    PGPASSWORD: PASSWORD,
  };
  home = makeHome({ console: { enabled: false }, store: { engine: 'postgres' } });
});

afterAll(() => home?.cleanup());

describe('the PG* variables for a PostgreSQL store without a URL (built CLI)', () => {
  it("doctor's store check reaches the server and says the URL came from them", async () => {
    const env = { ...home.env, AGENTWIRE_STORE_URL: '', ...pgEnv };
    const doctor = await run(['doctor', '--json'], env);
    const store = (
      JSON.parse(doctor.out) as { findings: { check: string; status: string; message: string }[] }
    ).findings.find((f) => f.check === 'store');
    expect(store?.status, doctor.err).not.toBe('fail');
    expect(store?.message).toContain(
      `/${pgEnv.PGDATABASE} (from PGHOST, PGPORT, PGDATABASE, PGUSER, PGPASSWORD)`,
    );
    expect(doctor.out + doctor.err).not.toContain(PASSWORD);
  });

  it('config check names the database and the variables, without the password', async () => {
    const env = { ...home.env, AGENTWIRE_STORE_URL: '', ...pgEnv };
    const check = await run(['config', 'check'], env);
    expect(check.code, check.err).toBe(0);
    expect(check.out).toContain(
      `  store: postgres at postgresql://${pgEnv.PGUSER}@${encodeURIComponent(pgEnv.PGHOST ?? '')}:${pgEnv.PGPORT}/${pgEnv.PGDATABASE} (from PGHOST, PGPORT, PGDATABASE, PGUSER, PGPASSWORD)\n`,
    );
    expect(check.out + check.err).not.toContain(PASSWORD);
  });

  it('`agentwire chat` that cannot reach it exits 1 naming the variables, without the password', async () => {
    const env = {
      ...home.env,
      AGENTWIRE_STORE_URL: '',
      ...pgEnv,
      PGHOST: '/no-such-socket-dir',
    };
    const relay = await run(['chat'], env);
    expect(relay.code).toBe(1);
    expect(relay.err.trim()).toMatch(
      new RegExp(
        `^agentwire: The store's database at postgresql://${pgEnv.PGUSER}@%2Fno-such-socket-dir:${pgEnv.PGPORT}/${pgEnv.PGDATABASE} \\(from PGHOST, PGPORT, PGDATABASE, PGUSER, PGPASSWORD\\) cannot be reached \\(.*\\); start PostgreSQL or fix those variables\\.$`,
      ),
    );
    expect(relay.err).not.toContain(PASSWORD);
  });
});

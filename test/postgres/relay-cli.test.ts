// A relay started through the built CLI (dist/) with `store.engine: 'postgres'`: a signed Twilio
// webhook is answered end to end (the fake claude as a real child process, Twilio's REST API faked on
// 127.0.0.1), every row lands in PostgreSQL and none in a SQLite file, and the commands beside it
// (status, doctor, backup, config print) read the same database and never print its password.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type FakeTwilio,
  fakeTwilioSection,
  startFakeTwilio,
} from '../channels/twilio/helpers/fake-twilio.js';
import { postWhenUp, smsParams } from '../channels/twilio/helpers/harness.js';
import { freePort, type Home, MAIN, makeHome, type Proc, spawnNode, waitFor } from '../e2e/helpers.js';
import { freshDatabase, queryRows } from '../support/postgres-db.js';

// The test cluster trusts every local connection, so a password in the URL is accepted and ignored:
// it is here only to be looked for where it must never appear.
const PASSWORD = 'pw-Very-Secret-9317';

let home: Home;
let fake: FakeTwilio;
let relay: Proc;
let url: string;
let env: NodeJS.ProcessEnv;
/** Relays a test starts besides the first: stopped after the file even when a test fails midway. */
const others: Proc[] = [];

const rows = <T>(sql: string) => queryRows<T>(url, sql);

/** Polls an asynchronous check every 50 ms until it holds or 45 s passed; whether it held. */
async function until(check: () => Promise<boolean>): Promise<boolean> {
  for (const end = Date.now() + 45_000; Date.now() < end; ) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

function run(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const p = spawnNode([MAIN, ...args], env);
  return p.exit.then(({ code }) => ({ code, out: p.stdout(), err: p.stderr() }));
}

beforeAll(async () => {
  expect(existsSync(MAIN), 'build first: npm run build').toBe(true);
  const u = new URL(await freshDatabase());
  u.password = PASSWORD;
  url = u.toString();
  fake = await startFakeTwilio();
  const port = await freePort();
  home = makeHome({
    twilio: fakeTwilioSection(fake, port),
    console: { enabled: false },
    store: { engine: 'postgres' },
  });
  // The URL from the environment, as a deployment would keep it out of the config file.
  env = { ...home.env, AGENTWIRE_STORE_URL: url, TWILIO_ACCOUNT_SID: '', TWILIO_AUTH_TOKEN: '' };
  relay = spawnNode([MAIN, 'relay'], env);
  const res = await postWhenUp(
    `http://127.0.0.1:${port}/twilio/inbound`,
    smsParams({ Body: 'hello postgres', MessageSid: `SM${'a'.repeat(32)}` }),
  );
  expect(res.status, relay.stderr()).toBe(200);
  expect(await waitFor(() => fake.created.length > 0), relay.stderr()).toBe(true);
});

afterAll(async () => {
  for (const p of others)
    if (p.child.exitCode === null && p.child.signalCode === null) {
      p.child.kill('SIGKILL');
      await p.exit;
    }
  if (relay && relay.child.exitCode === null && relay.child.signalCode === null) {
    relay.child.kill('SIGTERM');
    await relay.exit;
  }
  await fake?.close();
  home?.cleanup();
});

describe("a relay with store.engine 'postgres' (the built CLI)", () => {
  it('answers a Twilio message end to end, keeping its rows in PostgreSQL and none in a SQLite file', async () => {
    expect(fake.created.map((m) => [m.to, m.body])).toEqual([['+15551234567', 'reply: hello postgres']]);
    const inbox = await rows<{ message_id: string; status: string }>('SELECT message_id, status FROM inbox');
    expect(inbox).toEqual([{ message_id: `SM${'a'.repeat(32)}`, status: 'done' }]);
    expect(await rows<{ status: string }>('SELECT status FROM outbox')).toEqual([{ status: 'sent' }]);
    expect(readdirSync(home.dir).filter((f) => f.startsWith('agentwire.db'))).toEqual([]);
  });

  it('registers itself in the processes table; status lists it, from the same database', async () => {
    const procs = await rows<{ role: string; pid: number }>('SELECT role, pid FROM processes');
    expect(procs).toEqual([{ role: 'relay', pid: relay.child.pid }]);
    const status = await run(['status', '--json']);
    expect(status.code, status.err).toBe(0);
    const snap = JSON.parse(status.out) as {
      processes?: { role: string; pid: number }[];
      recentRuns: unknown[];
    };
    expect(snap.processes?.map((p) => [p.role, p.pid])).toEqual([['relay', relay.child.pid]]);
    expect(snap.recentRuns).toHaveLength(1);
    const text = await run(['status']);
    expect(text.out).toMatch(new RegExp(`Processes: 1\\n  relay .* pid ${relay.child.pid} `));
  });

  it('a second relay whose config differs in a setting that matters is refused in one sentence naming it', async () => {
    const other = makeHome({
      twilio: fakeTwilioSection(fake, await freePort()),
      console: { enabled: false },
      store: { engine: 'postgres' },
      queue: { whileBusy: 'followup' },
    });
    try {
      const second = spawnNode([MAIN, 'relay'], { ...env, AGENTWIRE_HOME: other.dir });
      others.push(second);
      // Bounded: a relay that is not refused keeps running.
      expect(
        await waitFor(() => second.child.exitCode !== null, 30_000),
        'the second relay kept running',
      ).toBe(true);
      expect(second.child.exitCode).toBe(1);
      expect(second.stderr().trim()).toMatch(
        new RegExp(
          `^Cannot start: the relay on \\S+ \\(pid ${relay.child.pid}\\) uses this database with a different config ` +
            '\\(queue\\.whileBusy differ\\); every process on one database must run the same config \\(docs/scale-out\\.md\\)\\.$',
        ),
      );
      // It left the registry as it found it.
      expect(await rows<{ pid: number }>('SELECT pid FROM processes')).toEqual([{ pid: relay.child.pid }]);
    } finally {
      other.cleanup();
    }
  });

  it('a second relay differing only in its own settings (webhook port, run cap) runs beside the first', async () => {
    const other = makeHome({
      twilio: fakeTwilioSection(fake, await freePort()),
      console: { enabled: false },
      store: { engine: 'postgres' },
      queue: { maxConcurrentRuns: 7 },
    });
    try {
      const second = spawnNode([MAIN, 'relay'], { ...env, AGENTWIRE_HOME: other.dir });
      others.push(second);
      const both = async () => (await rows<{ pid: number }>('SELECT pid FROM processes')).length === 2;
      expect(await until(both), second.stderr()).toBe(true);
      second.child.kill('SIGTERM');
      expect((await second.exit).code, second.stderr()).toBe(0);
      expect(await rows<{ pid: number }>('SELECT pid FROM processes')).toEqual([{ pid: relay.child.pid }]);
    } finally {
      other.cleanup();
    }
  });

  it('`agentwire chat` beside the relay runs its chat through the same database, then leaves the registry', async () => {
    const chat = spawnNode([MAIN, 'chat'], env, 'from the console\n');
    expect((await chat.exit).code, chat.stderr()).toBe(0);
    expect(chat.stdout()).toContain('reply: from the console');
    const inbox = await rows<{ chat: string; status: string }>(
      "SELECT chat, status FROM inbox WHERE chat LIKE 'console:%'",
    );
    expect(inbox).toEqual([{ chat: 'console:local', status: 'done' }]);
    expect(await rows<{ pid: number }>('SELECT pid FROM processes')).toEqual([{ pid: relay.child.pid }]);
  });

  it('a relay whose database cannot be reached exits 1 naming it, without its password', async () => {
    const other = makeHome({
      twilio: fakeTwilioSection(fake, await freePort()),
      console: { enabled: false },
      store: { engine: 'postgres' },
    });
    const down = spawnNode([MAIN, 'relay'], {
      ...env,
      AGENTWIRE_HOME: other.dir,
      AGENTWIRE_STORE_URL: `postgresql://aw:${PASSWORD}@%2Fno-such-socket-dir/agentwire`,
    });
    const exit = await down.exit;
    other.cleanup();
    expect(exit.code).toBe(1);
    expect(down.stderr().trim()).toMatch(
      /^agentwire: The store's database at postgresql:\/\/aw@%2Fno-such-socket-dir\/agentwire cannot be reached \(connect ENOENT .*\); start PostgreSQL or fix store\.url\.$/,
    );
    expect(down.stderr()).not.toContain(PASSWORD);
  });

  it('doctor checks the database (reachable, server and schema version); backup points at pg_dump', async () => {
    const doctor = await run(['doctor', '--json']);
    const findings = (
      JSON.parse(doctor.out) as { findings: { check: string; status: string; message: string }[] }
    ).findings;
    const store = findings.find((f) => f.check === 'store');
    expect(store?.status).toBe('ok');
    // The server's version, the URL without its password, the schema this agentwire writes.
    expect(store?.message).toMatch(
      /^PostgreSQL 1\d\.\d+.* at postgresql:\/\/postgres@[^:@]+\/aw_\w+, schema version \d+ \(current\)$/,
    );
    const backup = await run(['backup', join(home.dir, 'copy.db')]);
    expect(backup.code).toBe(1);
    expect(backup.err).toContain('back it up with pg_dump');
    expect(existsSync(join(home.dir, 'copy.db'))).toBe(false);
    for (const out of [doctor.out, doctor.err, backup.out, backup.err]) expect(out).not.toContain(PASSWORD);
  });

  it("never shows the URL's password: config print, status, the relay log", async () => {
    const printed = await run(['config', 'print']);
    expect(printed.code, printed.err).toBe(0);
    expect(printed.out).toContain('"engine": "postgres"');
    expect(printed.out).toContain('"url": "[redacted]"');
    const status = await run(['status']);
    const logs = join(home.dir, 'logs');
    const logText = existsSync(logs)
      ? readdirSync(logs)
          .map((f) => readFileSync(join(logs, f), 'utf8'))
          .join('')
      : '';
    for (const out of [printed.out, status.out, status.err, relay.stderr(), relay.stdout(), logText])
      expect(out).not.toContain(PASSWORD);
  });
});

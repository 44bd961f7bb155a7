// `agentwire schedules` and `agentwire heartbeat` as a user runs them: the built binary in a child
// process, a real config file and state folder, and for the relay path a control socket served by
// this test with the real `heartbeat` method over a scheduler (the SystemRunner is the double).
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { promisify } from 'node:util';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { callRelay } from '../../src/cli/heartbeat.js';
import { heartbeatMethod } from '../../src/heartbeat/control.js';
import { createScheduler } from '../../src/heartbeat/scheduler.js';
import { openDb } from '../../src/store/sqlite/db.js';
import { jobStateStore } from '../../src/store/sqlite/job-states.js';
import { QUEUE_MIGRATIONS } from '../../src/store/sqlite/queue-schema.js';
import { saveSession } from '../../src/store/sqlite/sessions.js';
import { FAKE } from '../e2e/helpers.js';
import { captureLog, FakeClock, FakeRunner, jobDeps, ok, openStateDb, tempDir } from './helpers.js';

const run = promisify(execFile);
const BIN = join(import.meta.dirname, '../../dist/cli/bin.js');

let tmp: ReturnType<typeof tempDir>;
let server: Server | undefined;

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error('build first: npm run build');
});
beforeEach(() => {
  tmp = tempDir();
});
afterEach(async () => {
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
  tmp.cleanup();
});

async function cli(
  args: string[],
  config: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const file = join(tmp.dir, 'agentwire.json5');
  writeFileSync(file, config);
  try {
    const r = await run(process.execPath, [BIN, '--config', file, ...args], {
      env: { PATH: process.env.PATH ?? '', AGENTWIRE_HOME: tmp.dir, HOME: tmp.dir, TZ: 'UTC' },
    });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const CONFIG = `{
  heartbeat: { target: "whatsapp:+15551234567", activeHours: { start: "08:00", end: "22:00", timeZone: "Europe/Berlin" } },
  schedules: [
    { id: "future", at: "2099-01-01T09:00", timeZone: "Europe/Berlin", target: "whatsapp:+15551234567", prompt: "p" },
    { id: "past", at: "2020-01-01T09:00:00Z", target: "whatsapp:+15551234567", prompt: "p" },
  ],
}`;

describe('agentwire schedules', () => {
  it('lists next run times without a relay and without creating the store', async () => {
    const r = await cli(['schedules'], CONFIG);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('heartbeat: every 30 min → whatsapp:…4567, active 08:00-22:00 Europe/Berlin');
    expect(r.stdout).toContain('future: at 2099-01-01T09:00 (Europe/Berlin) → whatsapp:…4567');
    expect(r.stdout).toContain('next 2099-01-01 09:00 Europe/Berlin');
    expect(r.stdout).toContain('past: at 2020-01-01T09:00:00Z → whatsapp:…4567');
    expect(r.stdout).toContain('due now (was due 2020-01-01 09:00 UTC; fires when the relay runs)');
    expect(existsSync(join(tmp.dir, 'agentwire.db'))).toBe(false);
  });

  it('reads an existing store without migrating it (no table appears, the file is not written)', async () => {
    const file = join(tmp.dir, 'agentwire.db');
    openDb(file, QUEUE_MIGRATIONS).close();
    const before = statSync(file).mtimeMs;
    const r = await cli(['schedules', '--json'], CONFIG);
    expect(r.code).toBe(0);
    const db = new DatabaseSync(file, { readOnly: true });
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as {
      name: string;
    }[];
    db.close();
    expect(tables.map((t) => t.name)).not.toContain('schedule_state');
    expect(statSync(file).mtimeMs).toBe(before);
  });

  it('reads the stored state: a one-shot that ran is done, with its last outcome', async () => {
    const db = openStateDb(join(tmp.dir, 'agentwire.db'));
    await jobStateStore(db).save(
      'schedule:past',
      {
        fingerprint: JSON.stringify([null, null, '2020-01-01T09:00:00Z', null]),
        lastRunAt: Date.parse('2020-01-01T09:00:00Z'),
        lastOutcome: 'sent',
        failureStreak: 0,
        attempts: 0,
        done: true,
      },
      Date.now(),
    );
    db.close();
    const r = await cli(['schedules', '--json'], CONFIG);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { schedules: Record<string, unknown>[] };
    expect(out.schedules).toEqual([
      expect.objectContaining({ id: 'future', state: 'scheduled', nextAt: '2099-01-01T08:00:00.000Z' }),
      expect.objectContaining({
        id: 'past',
        state: 'done',
        lastAt: '2020-01-01T09:00:00.000Z',
        lastOutcome: 'sent',
      }),
    ]);
  });

  it('a bad schedule is a config error naming the key', async () => {
    const r = await cli(
      ['schedules'],
      '{schedules: [{id: "a", cron: "0 8 * * *", timeZone: "Europe/Berlinn", target: "whatsapp:+15551234567", prompt: "p"}]}',
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /agentwire\.json5:1:\d+ schedules\.0\.timeZone: unknown time zone "Europe\/Berlinn"/,
    );
  });
});

describe('agentwire heartbeat', () => {
  it('fires directly when no relay runs, and never starts a session to do it', async () => {
    const r = await cli(['heartbeat', '--dry-run'], CONFIG);
    expect(r.code).toBe(1);
    expect(r.stderr).not.toContain('No relay is running');
    expect(r.stdout).toContain('there is no agent session in whatsapp:…4567 yet');
  });

  it('without a relay, a reply goes to the outbox for the relay, and the command says so', async () => {
    const chat = 'twilio:+15551234567';
    const db = openDb(join(tmp.dir, 'agentwire.db'), QUEUE_MIGRATIONS);
    saveSession(db, chat, 'claude', 'sess-hb', Date.now());
    db.close();
    const config = `{whatsapp: {enabled: false}, heartbeat: {target: "${chat}"},
      agent: {mode: 'cold', command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(FAKE)}]}}`;
    const r = await cli(['heartbeat'], config);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      'No relay is running: the reply to twilio:…4567 is stored and goes out when `agentwire relay` starts:\nreply: This is a scheduled check-in',
    );
    expect(r.stdout).not.toContain('+1555');
    const json = await cli(['heartbeat', '--json'], config);
    expect(JSON.parse(json.stdout)).toMatchObject({ type: 'sent', chat: 'twilio:…4567', stored: true });
    const check = openDb(join(tmp.dir, 'agentwire.db'), QUEUE_MIGRATIONS);
    const pending = check
      .prepare("SELECT chat, status FROM outbox WHERE key LIKE '%heartbeat:manual:%'")
      .all() as { chat: string; status: string }[];
    check.close();
    expect(pending.length).toBe(2);
    expect(pending.every((p) => p.chat === chat && p.status === 'pending')).toBe(true);
    // Its run is in the log file that `agentwire logs` reads, as the relay's would be.
    const logged = readFileSync(join(tmp.dir, 'logs', 'agentwire.log'), 'utf8')
      .trim()
      .split('\n');
    expect(logged.some((l) => (JSON.parse(l) as { level: number }).level >= 30)).toBe(true);
  });

  it('refuses a group for --to before asking anyone', async () => {
    const r = await cli(['heartbeat', '--to', 'whatsapp:120363025246125244@g.us'], CONFIG);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--to: a heartbeat is never sent to a group');
  });

  it('fires through the running relay and prints what would be sent (--dry-run)', async () => {
    const clock = new FakeClock(Date.parse('2026-07-01T03:00:00Z')); // 05:00 Berlin: outside active hours
    const runner = new FakeRunner(clock);
    runner.sessions.add('whatsapp:+15551234567');
    runner.replies = [ok('Two mails need you. HEARTBEAT_OK', ['/w/mails.txt'])];
    const db = openStateDb(join(tmp.dir, 'relay-state.db'));
    const scheduler = createScheduler({
      runner,
      clock,
      ...jobDeps(db),
      log: captureLog().log,
      runCheck: async () => ({ type: 'failed', message: 'none' }),
      config: { heartbeat: { target: 'whatsapp:+15551234567' }, schedules: [] },
      defaultTarget: () => undefined,
    });
    const handle = heartbeatMethod(scheduler);
    const received: unknown[] = [];
    server = createServer((conn) => {
      let buf = '';
      conn.on('data', async (c) => {
        buf += c.toString();
        // The caller says who it is first (a hello line): the request is the line after it.
        const lines = buf.split('\n').filter((l) => l && !l.startsWith('{"hello"'));
        if (!buf.endsWith('\n') || lines.length === 0) return;
        const req = JSON.parse(lines[0] ?? '') as { id: number; method: string; params: unknown };
        received.push(req);
        const res =
          req.method === 'heartbeat'
            ? { id: req.id, ok: true, result: await handle(req.params) }
            : { id: req.id, ok: false, error: `unknown method ${req.method}` };
        conn.end(`${JSON.stringify(res)}\n`);
      });
    });
    await new Promise<void>((r) => server?.listen(join(tmp.dir, 'relay.sock'), r));

    const r = await cli(['heartbeat', '--dry-run'], CONFIG);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      'Would send to whatsapp:…4567 (dry run, nothing sent):\nTwo mails need you.\n[attachment] /w/mails.txt\n',
    );
    expect(received).toEqual([{ id: 1, method: 'heartbeat', params: { dryRun: true } }]);
    expect(runner.delivered).toEqual([]);

    runner.busy.add('whatsapp:+15551234567');
    const busy = await cli(['heartbeat', '--json'], CONFIG);
    expect(busy.code).toBe(1);
    expect(JSON.parse(busy.stdout)).toEqual({
      type: 'skipped',
      reason: 'busy',
      chat: 'whatsapp:…4567',
    });
    db.close();
  });
});

describe('callRelay', () => {
  it('reads the core protocol: ok results, error sentences, and no relay', async () => {
    const sock = join(tmp.dir, 'c.sock');
    expect(await callRelay(sock, 'heartbeat', {}, 2000)).toEqual({ type: 'no_relay' });
    server = createServer((conn) => {
      conn.on('data', (c) => {
        // The request is the line after the caller's hello.
        const line = c.toString().trim().split('\n').at(-1) ?? '';
        const req = JSON.parse(line) as { id: number; params: { fail?: boolean } };
        const res = req.params.fail
          ? { id: req.id, ok: false, error: 'heartbeat failed; see the relay log' }
          : { id: req.id, ok: true, result: { type: 'silent', chat: 'console:local' } };
        conn.end(`${JSON.stringify(res)}\n`);
      });
    });
    await new Promise<void>((r) => server?.listen(sock, r));
    expect(await callRelay(sock, 'heartbeat', {}, 2000)).toEqual({
      type: 'ok',
      result: { type: 'silent', chat: 'console:local' },
    });
    expect(await callRelay(sock, 'heartbeat', { fail: true }, 2000)).toEqual({
      type: 'error',
      message: 'heartbeat failed; see the relay log',
    });
  });
});

// The built binary, spawned for real: `agentwire chat` over stdin/stdout and `agentwire relay`'s
// refusals. Needs `npm run build` first (npm test does it).

import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { promisify } from 'node:util';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resolvePaths } from '../../src/config/paths.js';
import { openDb } from '../../src/store/sqlite/db.js';
import { sqliteFile } from '../../src/store/sqlite/open.js';
import { outboxMigration } from '../../src/store/sqlite/outbox.js';
import { ALL_MIGRATIONS } from '../../src/store/sqlite/schema.js';
import {
  alive,
  type Home,
  killOrphanGroup,
  MAIN,
  makeHome,
  type Proc,
  spawnNode,
  waitFor,
} from './helpers.js';

const run = promisify(execFile);
let home: Home;
// A relay a failed wait left running is killed before its home is removed, so it writes nothing back.
const procs: Proc[] = [];
afterEach(() => {
  for (const p of procs.splice(0)) p.child.kill('SIGKILL');
  home?.cleanup();
});
beforeAll(() => {
  expect(existsSync(MAIN), 'build first: npm run build').toBe(true);
});

const count = (haystack: string, needle: string) => haystack.split(needle).length - 1;

describe('agentwire chat', () => {
  it("printf 'hello\\n' | agentwire chat prints the reply and exits 0 (run by a shell, literally)", async () => {
    home = makeHome();
    // `agentwire` on PATH, as npm would install it: a shim that runs the built binary.
    const bin = join(home.dir, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'agentwire'), `#!/bin/sh\nexec "${process.execPath}" "${MAIN}" "$@"\n`, {
      mode: 0o755,
    });
    const env = { ...home.env, PATH: `${bin}:${process.env.PATH}` };
    const { stdout, stderr } = await run('/bin/sh', ['-c', "printf 'hello\\n' | agentwire chat"], { env });
    expect(stderr).toBe('');
    expect(stdout).toBe('reply: hello\n');
  });

  it('answers piped lines in order, handles commands, and keeps the session across lines', async () => {
    home = makeHome({ queue: { whileBusy: 'followup' } });
    const p = spawnNode([MAIN, 'chat'], home.env, 'one\ntwo\n/help\n\nthree\n');
    expect((await p.exit).code).toBe(0);
    const out = p.stdout();
    expect(out.indexOf('reply: one')).toBeLessThan(out.indexOf('reply: two'));
    expect(out.indexOf('reply: two')).toBeLessThan(out.indexOf('reply: three'));
    expect(out).toContain('Commands:');
    const starts = home.events().filter((e) => e.ev === 'start');
    expect(starts.map((e) => e.prompt)).toEqual(['one', 'two', 'three']);
    expect(starts.map((e) => e.resume)).toEqual([false, true, true]);
  });

  it('/verbose on prints what the agent said before its answer (a real claude capture with a tool call)', async () => {
    const agent = {
      command: [process.execPath, join(import.meta.dirname, '..', 'fixtures', 'replay-cli.mjs')],
      env: {
        REPLAY_CAPTURE: join(import.meta.dirname, '..', '..', 'fixtures', 'agents', 'claude', 'tool.json'),
      },
    };
    home = makeHome({ agent });
    const verbose = spawnNode([MAIN, 'chat'], home.env, '/verbose on\nchart the deploys\n');
    expect((await verbose.exit).code).toBe(0);
    const out = verbose.stdout();
    expect(out.indexOf('Let me check.')).toBeGreaterThan(out.indexOf('Verbose on'));
    expect(out.indexOf('Here is your chart.')).toBeGreaterThan(out.indexOf('Let me check.'));
    home.cleanup();

    home = makeHome({ agent });
    const quiet = spawnNode([MAIN, 'chat'], home.env, 'chart the deploys\n');
    expect((await quiet.exit).code).toBe(0);
    expect(quiet.stdout()).toContain('Here is your chart.');
    expect(quiet.stdout()).not.toContain('Let me check.');
  });

  it('a SIGKILL mid-run, then a restart, answers every message exactly once', async () => {
    home = makeHome({ queue: { whileBusy: 'followup' } });
    const first = spawnNode([MAIN, 'chat'], home.env);
    procs.push(first);
    first.child.stdin?.write('one\n');
    expect(await waitFor(() => first.stdout().includes('reply: one'))).toBe(true);
    first.child.stdin?.write('two sleeponce:60000\nthree\n');
    expect(await waitFor(() => home.events().some((e) => e.ev === 'sleep'))).toBe(true);
    first.child.kill('SIGKILL');
    await first.exit;
    // The killed relay's CLI is an orphan in its own process group; it must not answer late.
    const orphan = home.events().find((e) => e.ev === 'start' && e.prompt?.startsWith('two'))?.pid as number;
    killOrphanGroup(orphan);

    const second = spawnNode([MAIN, 'chat'], home.env, '');
    expect((await second.exit).code).toBe(0);
    const third = spawnNode([MAIN, 'chat'], home.env, '');
    expect((await third.exit).code).toBe(0);

    const all = first.stdout() + second.stdout() + third.stdout();
    expect(count(all, 'reply: one\n')).toBe(1);
    expect(count(all, 'reply: two sleeponce:60000\n')).toBe(1);
    expect(count(all, 'reply: three\n')).toBe(1);
    expect(third.stdout()).toBe('');
    expect(second.stdout()).toBe('reply: two sleeponce:60000\nreply: three\n');
  });
});

describe('agentwire relay refuses to start without a usable channel', () => {
  it('says no channel is enabled and exits non-zero', async () => {
    home = makeHome({ whatsapp: { enabled: false } });
    const p = spawnNode([MAIN, 'relay'], home.env);
    expect((await p.exit).code).toBe(1);
    expect(p.stderr()).toContain('No channel is enabled');
    // Every channel's key named whole, the list joined in words (it once read "or.enabled telegram.enabled").
    expect(p.stderr()).toMatch(
      /set whatsapp\.enabled, twilio\.enabled, telegram\.enabled, slack\.enabled or discord\.enabled to true\./,
    );
    expect(p.stderr()).toContain('agentwire chat');
  });
});

describe('agentwire relay refuses a store written by a newer agentwire', () => {
  it('exits 1 with one sentence naming the version found and the one known, and leaves the file as it was', async () => {
    home = makeHome({
      twilio: {
        enabled: true,
        accountSid: `AC${'0'.repeat(32)}`,
        authToken: 'a'.repeat(32),
        from: '+15550000000',
        allowFrom: ['+15551234567'],
        apiBaseUrl: 'http://127.0.0.1:9',
        webhook: { host: '127.0.0.1', port: 0 },
      },
    });
    const file = sqliteFile(resolvePaths(home.env).home);
    const db = openDb(file, ALL_MIGRATIONS);
    db.prepare("UPDATE schema_migrations SET version = 99 WHERE module = 'outbox'").run();
    db.close();
    const p = spawnNode([MAIN, 'relay'], home.env);
    procs.push(p);
    expect((await p.exit).code).toBe(1);
    const known = outboxMigration.steps.length;
    expect(p.stderr().trim()).toBe(
      'agentwire: The store was written by a newer agentwire: its outbox tables are at schema version 99, ' +
        `and this agentwire knows version ${known} at most; upgrade agentwire to open it.`,
    );
    const after = new DatabaseSync(file, { readOnly: true });
    expect(after.prepare("SELECT version FROM schema_migrations WHERE module = 'outbox'").get()).toEqual({
      version: 99,
    });
    after.close();
  });
});

describe('agentwire chat and Ctrl-C', () => {
  it('SIGINT stops the current run (its process group too) and the chat carries on; EOF then exits 0', async () => {
    home = makeHome();
    const p = spawnNode([MAIN, 'chat'], home.env);
    p.child.stdin?.write('long sleep:60000 grandchild\n');
    expect(await waitFor(() => home.events().some((e) => e.ev === 'grandchild'))).toBe(true);
    const cli = home.events().find((e) => e.ev === 'start')?.pid as number;
    const grandchild = home.events().find((e) => e.ev === 'grandchild')?.child as number;
    p.child.kill('SIGINT');
    expect(await waitFor(() => !alive(cli) && !alive(grandchild))).toBe(true);
    expect(await waitFor(() => p.stderr().includes('(stopped)'))).toBe(true);
    p.child.stdin?.end('after\n');
    expect((await p.exit).code).toBe(0);
    expect(p.stdout()).toBe('reply: after\n');
  });

  it('SIGINT with nothing running exits', async () => {
    home = makeHome();
    const p = spawnNode([MAIN, 'chat'], home.env);
    p.child.stdin?.write('hi\n');
    expect(await waitFor(() => p.stdout().includes('reply: hi'))).toBe(true);
    p.child.kill('SIGINT');
    expect((await p.exit).code).toBe(0);
  });
});

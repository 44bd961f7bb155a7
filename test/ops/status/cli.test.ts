// `agentwire status` as a user runs it (the built binary): offline from a real store, live through
// the core's control server answering `status` with a full snapshot. (The core's own RelayStatus
// answer is covered end to end in test/web/relay.test.ts.)
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { configSchema } from '../../../src/config/schema.js';
import { MethodRegistry } from '../../../src/control/methods.js';
import { startControlServer } from '../../../src/control/server.js';
import { createLogger } from '../../../src/log.js';
import { liveStatus } from '../../../src/ops/status/live.js';
import { acquireLock } from '../../../src/store/home-lock.js';
import { statusReader } from '../../../src/store/sqlite/status-read.js';
import { ALICE, seededStore, stateFolder, T } from './seed.js';

const bin = new URL('../../../dist/cli/bin.js', import.meta.url).pathname;
const { version } = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

function run(home: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, 'status', ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: home, AGENTWIRE_HOME: home },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

let servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  servers = [];
});

/** A control socket speaking newline-delimited JSON, with `handle` answering each request. */
async function controlSocket(path: string, handle: (req: { id: number; method: string }) => unknown) {
  const server = createServer((conn) => {
    let buf = '';
    conn.on('data', (d) => {
      buf += d.toString();
      const nl = buf.indexOf('\n');
      if (nl < 0) return;
      const req = JSON.parse(buf.slice(0, nl)) as { id: number; method: string };
      const answer = handle(req);
      if (answer === undefined) conn.destroy();
      else conn.write(`${JSON.stringify(answer)}\n`);
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(path, r));
}

describe('agentwire status (built binary)', () => {
  it('without a relay, reads the state folder: linked state, waiting messages, failures, masked', async () => {
    const home = stateFolder();
    seededStore(home).close();
    const r = await run(home, []);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('relay: not running');
    expect(r.stdout).toContain('whatsapp  not linked yet');
    expect(r.stdout).toContain('Queue: 2 waiting, 0 of 4 running');
    expect(r.stdout).toContain('whatsapp:…4567       2 waiting');
    expect(r.stdout).toContain('timeout: the agent ran past its time limit and was stopped (2 messages)');
    expect(r.stdout).toContain(
      'delivery: a reply could not be delivered: recipient …6543 is not on WhatsApp',
    );
    expect(r.stdout).not.toMatch(/\+1555|secret plans/);

    const j = await run(home, ['--json']);
    const s = JSON.parse(j.stdout);
    expect(s).toMatchObject({ schemaVersion: 1, source: 'store', relay: { running: false }, health: 'down' });
    // No relay, so no relay version; the printing agentwire names its own.
    expect(s.relay.version).toBeUndefined();
    expect(s.cli).toEqual({ version });
    expect(s.recentRuns).toHaveLength(3);
    expect(j.stdout).not.toMatch(/\+1555/);
  });

  it('with a relay answering the full snapshot on the real control server, shows it', async () => {
    const home = stateFolder();
    const db = seededStore(home);
    const status = liveStatus({
      store: statusReader(db),
      config: configSchema.parse({}),
      channels: () => [
        { name: 'whatsapp', state: { type: 'connected', since: T, account: ALICE } },
        { name: 'twilio', state: { type: 'disabled' } },
      ],
      queue: async () => ({
        policy: 'collect',
        maxConcurrentRuns: 4,
        active: [],
        waiting: {},
        unsentReplies: 0,
      }),
      startedAt: Date.now() - 7_200_000,
      pid: 4242,
      // An older relay still running after an upgrade.
      version: '0.0.9',
    });
    const registry = new MethodRegistry();
    const methods: string[] = [];
    registry.register('status', async () => {
      methods.push('status');
      return status();
    });
    const server = await startControlServer(
      join(home, 'relay.sock'),
      registry,
      createLogger({ level: 'silent' }),
    );
    const r = await run(home, []);
    expect(r.code).toBe(0);
    expect(methods).toEqual(['status']);
    expect(r.stdout).toContain('relay: running (pid 4242, up 2h 0m, agentwire 0.0.9)');
    expect(r.stdout).toContain(`  this agentwire is ${version}: restart the relay to run it`);
    expect(r.stdout).toContain('health: ok');
    expect(r.stdout).toContain('whatsapp  connected as …4567');
    const j = JSON.parse((await run(home, ['--json'])).stdout);
    expect(j).toMatchObject({
      source: 'relay',
      health: 'ok',
      relay: { running: true, pid: 4242, version: '0.0.9' },
      cli: { version },
    });
    await server.close();
    db.close();
  });

  it('a live relay that does not answer is an error, not stale data', async () => {
    const home = stateFolder();
    const lock = await acquireLock(join(home, 'relay.lock'), home);
    await controlSocket(join(home, 'relay.sock'), () => undefined);
    const r = await run(home, []);
    if (lock.ok) await lock.release();
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`The relay (pid ${process.pid}) is running but did not answer`);
    expect(r.stdout).toBe('');
  });

  it('a lock left by a killed relay reads as stale, in the words doctor uses, even if its PID lives', async () => {
    const home = stateFolder();
    const lockPath = join(home, 'relay.lock');
    const script = `require('node:net').createServer().listen(${JSON.stringify(lockPath)}, () => process.kill(process.pid, 'SIGKILL'))`;
    expect(spawnSync(process.execPath, ['-e', script]).signal).toBe('SIGKILL');
    const r = await run(home, []);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('relay: not running');
    expect(r.stdout).toContain('left by a relay that is gone (killed or crashed)');
    // An old PID lock naming a live process (this test) is not a running relay either.
    rmSync(lockPath);
    writeFileSync(lockPath, `${process.pid}\n`, { mode: 0o600 });
    const j = JSON.parse((await run(home, ['--json'])).stdout);
    expect(j.relay).toEqual({ running: false, staleLock: true });
  });
});

import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChannelState } from '../../../src/channels/types.js';
import { MethodRegistry } from '../../../src/control/methods.js';
import { startControlServer } from '../../../src/control/server.js';
import { checkNode } from '../../../src/ops/doctor/node.js';
import { liveWhatsappFromRelay } from '../../../src/ops/doctor/whatsapp-live.js';
import { acquireLock } from '../../../src/store/home-lock.js';
import { openDb } from '../../../src/store/sqlite/db.js';
import { whatsappMigration } from '../../../src/store/sqlite/whatsapp-auth.js';
import { seedLinkedCreds } from '../../channels/whatsapp/harness.js';
import { memoryLog } from '../../queue/helpers.js';
import { waitFor } from '../wait.js';
import { CLAUDE_OK, doctor, fakeCli, gone, setup } from './helpers.js';

const byCheck = async (p: ReturnType<typeof doctor>, check: string) =>
  (await p).filter((f) => f.check === check);

describe('node version', () => {
  it.each([
    ['v22.12.9', 'fail'],
    ['v21.99.0', 'fail'],
    ['v18.20.0', 'fail'],
    ['v22.13.0', 'ok'],
    ['v22.14.1', 'ok'],
    ['v24.0.0', 'ok'],
    ['garbage', 'fail'],
  ])('%s → %s', (v, status) => {
    const f = checkNode(v);
    expect(f.status).toBe(status);
    if (status === 'fail') expect(f.fix).toMatch(/Node 24/);
  });
});

describe('config', () => {
  it('an invalid config fails with the key and line, and the other checks still run', async () => {
    const s = setup('{\n  queue: {maxConcurrentRuns: 0},\n}');
    const findings = await doctor(s);
    const cfg = findings.find((f) => f.check === 'config');
    expect(cfg?.status).toBe('fail');
    expect(cfg?.message).toContain(':2:');
    expect(cfg?.message).toContain('queue.maxConcurrentRuns');
    expect(cfg?.fix).toContain('agentwire config check');
    expect(findings.map((f) => f.check)).toEqual(expect.arrayContaining(['node', 'permissions', 'relay']));
  });

  it('a valid config is ok', async () => {
    const s = setup();
    fakeCli(s, 'claude', CLAUDE_OK);
    expect((await byCheck(doctor(s), 'config'))[0]?.status).toBe('ok');
  });
});

describe('permissions', () => {
  it('a state folder open to others fails with the chmod 700 fix', async () => {
    const s = setup();
    chmodSync(s.home, 0o755);
    const f = await byCheck(doctor(s), 'permissions');
    expect(f).toHaveLength(1);
    expect(f[0]).toMatchObject({ status: 'fail', fix: `chmod 700 ${s.home}` });
    expect(f[0]?.message).toContain('0755');
  });

  it('a readable database, WAL file and log file each fail with chmod 600', async () => {
    const s = setup();
    for (const name of ['agentwire.db', 'agentwire.db-wal'])
      writeFileSync(join(s.home, name), '', { mode: 0o644 });
    mkdirSync(join(s.home, 'logs'), { mode: 0o700 });
    writeFileSync(join(s.home, 'logs', 'agentwire.log'), '', { mode: 0o640 });
    const f = await byCheck(doctor(s), 'permissions');
    expect(f.map((x) => x.fix).sort()).toEqual(
      [
        `chmod 600 ${join(s.home, 'agentwire.db')}`,
        `chmod 600 ${join(s.home, 'agentwire.db-wal')}`,
        `chmod 600 ${join(s.home, 'logs', 'agentwire.log')}`,
      ].sort(),
    );
    expect(f.every((x) => x.status === 'fail')).toBe(true);
  });

  it('a config file holding a literal secret must be private; one using ${VAR} need not be', async () => {
    const literal = setup('{whatsapp: {enabled: false}, twilio: {authToken: "literal-secret-123"}}');
    chmodSync(join(literal.home, 'agentwire.json5'), 0o644);
    const f = await byCheck(doctor(literal), 'permissions');
    expect(f[0]).toMatchObject({ status: 'fail', fix: `chmod 600 ${join(literal.home, 'agentwire.json5')}` });
    expect(JSON.stringify(f)).not.toContain('literal-secret-123');

    const viaEnv = setup('{whatsapp: {enabled: false}, twilio: {authToken: "${TOK}"}}');
    viaEnv.env.TOK = 'from-env-secret-456';
    chmodSync(join(viaEnv.home, 'agentwire.json5'), 0o644);
    expect((await byCheck(doctor(viaEnv), 'permissions'))[0]?.status).toBe('ok');
  });
});

describe('agent CLIs', () => {
  it('a missing CLI fails with the install command', async () => {
    const s = setup();
    const f = await byCheck(doctor(s), 'agent:claude');
    expect(f[0]?.status).toBe('fail');
    expect(f[0]?.message).toContain('not on PATH');
    expect(f[0]?.fix).toContain('npm install -g @anthropic-ai/claude-code');
  });

  it('a CLI on PATH answering --version is ok and shows its version and path', async () => {
    const s = setup();
    const file = fakeCli(
      s,
      'claude',
      '[ "$1" = "--version" ] && echo "2.0.14 (Claude Code)" && exit 0\nexit 9',
    );
    const f = await byCheck(doctor(s), 'agent:claude');
    expect(f[0]).toMatchObject({ status: 'ok', message: `2.0.14 (Claude Code) (${file})` });
  });

  it('a CLI that fails to start is a failure with its first stderr line, secrets scrubbed', async () => {
    const s = setup(
      '{whatsapp: {enabled: false}, console: {port: 0}, agent: {env: {KEY: "agent-secret-789"}}}',
    );
    fakeCli(s, 'claude', 'echo "Error: cannot load module (key agent-secret-789)" >&2; exit 3');
    const f = await byCheck(doctor(s), 'agent:claude');
    expect(f[0]?.status).toBe('fail');
    expect(f[0]?.message).toContain('exited with 3: Error: cannot load module');
    expect(f[0]?.message).not.toContain('agent-secret-789');
  });

  it('a CLI that hangs is reported, and it and its children are killed', async () => {
    const s = setup();
    const pids = join(s.home, 'pids');
    fakeCli(s, 'claude', `/bin/sleep 30 & echo "$$ $!" > '${pids}'; wait`);
    const f = await byCheck(doctor(s, { probeTimeoutMs: 300 }), 'agent:claude');
    expect(f[0]?.status).toBe('fail');
    expect(f[0]?.message).toMatch(/did not finish within/);
    const [shell, sleeper] = readFileSync(pids, 'utf8').trim().split(' ').map(Number);
    await waitFor(() => gone(shell as number) && gone(sleeper as number), 'the probe and its child to die');
  });

  it('agent.command pointing at a file that is not executable fails naming the key', async () => {
    const s = setup('{whatsapp: {enabled: false}, console: {port: 0}, agent: {command: ["./not-a-cli"]}}');
    const f = await byCheck(doctor(s), 'agent:claude');
    expect(f[0]?.status).toBe('fail');
    expect(f[0]?.message).toContain('agent.command names ./not-a-cli');
  });

  it('checks every configured kind, each with its own command', async () => {
    const s = setup(
      '{whatsapp: {enabled: false}, console: {port: 0}, agents: {codex: {model: "o3"}, pi: {command: ["mypi", "--x"]}}}',
    );
    fakeCli(s, 'claude', CLAUDE_OK);
    fakeCli(s, 'codex', 'echo "codex-cli 0.50.0"');
    const findings = await doctor(s);
    expect(findings.filter((f) => f.check.startsWith('agent:')).map((f) => [f.check, f.status])).toEqual([
      ['agent:claude', 'ok'],
      ['agent:codex', 'ok'],
      ['agent:pi', 'fail'],
    ]);
    expect(findings.find((f) => f.check === 'agent:pi')?.fix).toContain('agents.pi.command');
  });

  it('checks each named agent with its own command, a missing one naming its key', async () => {
    const s = setup(
      '{whatsapp: {enabled: false}, console: {port: 0}, agents: {list: [{name: "work", kind: "codex"}, {name: "home", kind: "pi", command: ["nopi"]}]}}',
    );
    fakeCli(s, 'claude', CLAUDE_OK);
    fakeCli(s, 'codex', 'echo "codex-cli 0.50.0"');
    const findings = await doctor(s);
    expect(findings.filter((f) => f.check.startsWith('agent:')).map((f) => [f.check, f.status])).toEqual([
      ['agent:work', 'ok'],
      ['agent:home', 'fail'],
      ['agent:claude', 'ok'],
    ]);
    expect(findings.find((f) => f.check === 'agent:home')?.message).toContain(
      'agents.list.1.command names nopi',
    );
  });
});

describe('an ACP agent', () => {
  it('is found on PATH without a --version probe (not part of ACP); missing, it fails naming the key', async () => {
    const s = setup(
      '{whatsapp: {enabled: false}, console: {port: 0}, agent: {kind: "acp", command: ["my-acp", "--stdio"]}}',
    );
    // Exits 1 on --version: a probe would call that a failure.
    fakeCli(s, 'my-acp', 'exit 1');
    const [f] = await byCheck(doctor(s), 'agent:acp');
    expect(f?.status).toBe('ok');
    expect(f?.message).toContain('my-acp --stdio; warm only');
    const missing = setup(
      '{whatsapp: {enabled: false}, console: {port: 0}, agents: {acp: {command: ["no-such-acp"]}}}',
    );
    const [g] = await byCheck(doctor(missing), 'agent:acp');
    expect(g?.status).toBe('fail');
    expect(g?.fix).toContain('agents.acp.command');
  });
});

describe('whatsapp', () => {
  it('enabled and never linked is a warning with the login fix; disabled is ok', async () => {
    const s = setup('{console: {port: 0}}');
    const f = await byCheck(doctor(s), 'whatsapp');
    expect(f[0]).toMatchObject({ status: 'warn' });
    expect(f[0]?.fix).toContain('agentwire login');
    const off = setup();
    expect((await byCheck(doctor(off), 'whatsapp'))[0]?.status).toBe('ok');
  });
});

describe('twilio and ports', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((x) => new Promise((r) => x.close(r))));
  });
  const busyPort = async (): Promise<number> => {
    const srv = createServer();
    servers.push(srv);
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    return (srv.address() as { port: number }).port;
  };

  it('enabled without credentials or sender fails each, warns without a public URL, never printing a secret', async () => {
    const s = setup(
      '{whatsapp: {enabled: false}, console: {port: 0}, twilio: {enabled: true, apiKey: "SKxxxxxxxx", webhook: {host: "127.0.0.1", port: 0}}}',
    );
    const f = await byCheck(doctor(s), 'twilio');
    const msgs = f.filter((x) => x.status === 'fail').map((x) => x.message);
    expect(msgs).toEqual(
      expect.arrayContaining([
        'no account SID',
        expect.stringContaining('no credentials'),
        expect.stringContaining('no sender'),
        expect.stringContaining('signatures cannot be checked'),
      ]),
    );
    expect(f.find((x) => x.message.includes('publicUrl is not set'))?.status).toBe('warn');
    expect(JSON.stringify(f)).not.toContain('SKxxxxxxxx');
  });

  it('a busy webhook port fails; credentials from the environment count and are not shown', async () => {
    const port = await busyPort();
    const s = setup(
      `{whatsapp: {enabled: false}, console: {port: 0}, twilio: {enabled: true, from: "+15550001111", allowFrom: ["+15550002222"], webhook: {host: "127.0.0.1", port: ${port}, publicUrl: "https://x.example/twilio/inbound"}}}`,
    );
    s.env.TWILIO_ACCOUNT_SID = 'AC0123456789';
    s.env.TWILIO_AUTH_TOKEN = 'twilio-token-secret';
    fakeCli(s, 'claude', CLAUDE_OK);
    const findings = await doctor(s);
    const f = findings.filter((x) => x.check === 'twilio');
    expect(f).toHaveLength(1);
    expect(f[0]).toMatchObject({
      status: 'fail',
      message: expect.stringContaining(`127.0.0.1:${port} is already in use`),
    });
    expect(f[0]?.fix).toContain('twilio.webhook.port');
    expect(JSON.stringify(findings)).not.toContain('twilio-token-secret');
  });

  it('the same setup on a free port is all well', async () => {
    const s = setup(
      '{whatsapp: {enabled: false}, console: {port: 0}, twilio: {enabled: true, from: "+15550001111", allowFrom: ["+15550002222"], webhook: {host: "127.0.0.1", port: 0, publicUrl: "https://x.example/twilio/inbound"}}}',
    );
    s.env.TWILIO_ACCOUNT_SID = 'AC0123456789';
    s.env.TWILIO_AUTH_TOKEN = 'twilio-token-secret';
    fakeCli(s, 'claude', CLAUDE_OK);
    const findings = await doctor(s);
    expect(findings.filter((x) => x.status !== 'ok')).toEqual([]);
  });

  it('a busy console port fails; a console bound beyond loopback warns', async () => {
    const port = await busyPort();
    const s = setup(`{whatsapp: {enabled: false}, console: {host: "127.0.0.1", port: ${port}}}`);
    const f = await byCheck(doctor(s), 'console');
    expect(f[0]).toMatchObject({ status: 'fail', message: expect.stringContaining('already in use') });
    const open = setup('{whatsapp: {enabled: false}, console: {host: "0.0.0.0", port: 0}}');
    const g = await byCheck(doctor(open), 'console');
    expect(g[0]).toMatchObject({ status: 'warn', fix: expect.stringContaining('ssh -L') });
  });
});

describe('one relay owning the device', () => {
  it('a lock held by a live process is ok (and its ports are not probed)', async () => {
    const port = await new Promise<{ srv: Server; port: number }>((r) => {
      const srv = createServer().listen(0, '127.0.0.1', () =>
        r({ srv, port: (srv.address() as { port: number }).port }),
      );
    });
    const s = setup(`{whatsapp: {enabled: false}, console: {host: "127.0.0.1", port: ${port.port}}}`);
    const lock = await acquireLock(join(s.home, 'relay.lock'), s.home);
    const findings = await doctor(s);
    port.srv.close();
    if (lock.ok) await lock.release();
    expect(findings.find((f) => f.check === 'relay')).toMatchObject({
      status: 'ok',
      message: expect.stringContaining(`pid ${process.pid}`),
    });
    expect(findings.find((f) => f.check === 'console')?.status).toBe('ok');
  });

  it('a lock left by a killed relay warns, even when a live process has its PID', async () => {
    const s = setup();
    // The socket of a holder that was SIGKILLed: the file stays, nobody listens on it.
    const lockPath = join(s.home, 'relay.lock');
    const script = `require('node:net').createServer().listen(${JSON.stringify(lockPath)}, () => process.kill(process.pid, 'SIGKILL'))`;
    expect(spawnSync(process.execPath, ['-e', script]).signal).toBe('SIGKILL');
    const f = await byCheck(doctor(s), 'relay');
    expect(f[0]).toMatchObject({ status: 'warn', message: expect.stringContaining('relay that is gone') });
    // An old-style PID lock naming a live process (this one) is no relay either.
    rmSync(lockPath);
    writeFileSync(lockPath, `${process.pid}\n`, { mode: 0o600 });
    const g = await byCheck(doctor(s), 'relay');
    expect(g[0]).toMatchObject({ status: 'warn', message: expect.stringContaining('relay that is gone') });
  });

  it('a control socket without a lock warns', async () => {
    const s = setup();
    writeFileSync(join(s.home, 'relay.sock'), '', { mode: 0o600 });
    const f = await byCheck(doctor(s), 'relay');
    expect(f[0]).toMatchObject({ status: 'warn', fix: expect.stringContaining('rm ') });
  });
});

describe("the running relay's WhatsApp link (through its control socket)", () => {
  async function withRelay(state: ChannelState) {
    const s = setup('{console: {port: 0}}');
    const lock = await acquireLock(join(s.home, 'relay.lock'), s.home);
    expect(lock.ok).toBe(true);
    const registry = new MethodRegistry();
    registry.register('status', async () => ({
      pid: process.pid,
      startedAt: 0,
      channels: { whatsapp: state },
    }));
    const server = await startControlServer(join(s.home, 'relay.sock'), registry, memoryLog().log);
    try {
      const findings = await doctor(s, { liveWhatsapp: liveWhatsappFromRelay, now: () => NOW });
      return findings.find((f) => f.check === 'whatsapp:link');
    } finally {
      await server.close();
      if (lock.ok) await lock.release();
    }
  }
  const NOW = Date.UTC(2026, 0, 5, 10);

  it("shows the watchdog's last check, ok or failed, with its time", async () => {
    const good = await withRelay({
      type: 'connected',
      since: NOW - 3_600_000,
      probe: { ok: true, at: NOW - 12 * 60_000, detail: 'answered in 140 ms' },
    });
    expect(good).toMatchObject({
      status: 'ok',
      message: 'connected; last liveness check 2026-01-05T09:48:00.000Z (12 min ago): ok, answered in 140 ms',
    });
    const bad = await withRelay({
      type: 'degraded',
      since: NOW - 60_000,
      lastError:
        'WhatsApp looks connected but failed 2 liveness checks in a row (last: no answer within 30 s); reconnecting',
      retries: 2,
      probe: { ok: false, at: NOW - 60_000, detail: 'no answer within 30 s' },
    });
    expect(bad).toMatchObject({
      status: 'fail',
      message: expect.stringContaining('failed, no answer within 30 s'),
    });
  });

  it('says WhatsApp is unreachable, not that a QR expired, while the network is down', async () => {
    const f = await withRelay({
      type: 'connecting',
      since: NOW - 60_000,
      lastError: 'WhatsApp is unreachable: WebSocket Error (getaddrinfo EAI_AGAIN web.whatsapp.com)',
      retries: 4,
    });
    expect(f).toMatchObject({
      status: 'fail',
      message: expect.stringMatching(/^WhatsApp is unreachable: .*EAI_AGAIN.*attempt 5/),
      fix: expect.stringContaining('DNS'),
    });
  });
});

describe('whatsapp link state from the store', () => {
  it('reads linked, logged out and never linked from a real database, without writing to it', async () => {
    const s = setup('{console: {port: 0}}');
    fakeCli(s, 'claude', CLAUDE_OK);
    const file = join(s.home, 'agentwire.db');
    const db = openDb(file, [whatsappMigration]);
    expect((await byCheck(doctor(s), 'whatsapp'))[0]?.status).toBe('warn');
    await seedLinkedCreds(db);
    const linked = await byCheck(doctor(s), 'whatsapp');
    expect(linked[0]).toMatchObject({ status: 'ok', message: expect.stringContaining('linked') });
    db.prepare('UPDATE wa_creds SET logged_out_at = 1').run();
    const out = await byCheck(doctor(s), 'whatsapp');
    expect(out[0]).toMatchObject({ status: 'fail', fix: expect.stringContaining('agentwire login') });
    db.close();
  });

  it('a database without the WhatsApp tables means never linked', async () => {
    const s = setup('{console: {port: 0}}');
    openDb(join(s.home, 'agentwire.db'), []).close();
    expect((await byCheck(doctor(s), 'whatsapp'))[0]?.message).toBe('not linked to a phone yet');
  });
});

// The relay with its console service, seen from outside: the printed URL, /healthz, `agentwire
// status` through the real control socket, `agentwire doctor` seeing the one relay that owns it.

import { spawn } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANNELS } from '../../src/channels/registry.js';
import { startLine } from '../../src/web/service.js';
import { startTestRelay, type TestRelay } from './relay-harness.js';

const bin = new URL('../../dist/cli/bin.js', import.meta.url).pathname;
const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
let r: TestRelay;

function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: r.home, AGENTWIRE_HOME: r.home },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

beforeAll(async () => {
  r = await startTestRelay();
});
afterAll(async () => {
  await r?.stop();
});

describe('relay with the web console service', () => {
  it('prints the console URL with the token kept in a private file', () => {
    const url = new URL(r.consoleUrl());
    expect(url.hostname).toBe('127.0.0.1');
    const token = url.searchParams.get('token') ?? '';
    expect(token.length).toBeGreaterThanOrEqual(32);
    expect(statSync(join(r.home, 'console.token')).mode & 0o777).toBe(0o600);
  });

  it('/healthz follows the WhatsApp link: down while a QR waits, ok once open', async () => {
    const base = new URL(r.consoleUrl()).origin;
    r.sock().emit('connection.update', { qr: '2@relay-test-qr' });
    const down = await fetch(`${base}/healthz`);
    expect(down.status).toBe(503);
    expect(await down.json()).toEqual({
      status: 'down',
      // Every registered channel is listed; the ones not running here are disabled.
      channels: {
        ...Object.fromEntries(CHANNELS.map((p) => [p.name, 'disabled'])),
        whatsapp: 'connecting',
      },
    });

    const s = JSON.parse((await cli(['status', '--json'])).stdout);
    expect(s).toMatchObject({ source: 'relay', relay: { running: true, pid: process.pid }, health: 'down' });
    // The relay's version comes over the control socket; the CLI adds its own.
    expect(s.relay.version).toBe(VERSION);
    expect(s.cli).toEqual({ version: VERSION });
    expect(s.channels[0]).toMatchObject({ name: 'whatsapp', state: 'connecting', qrAvailable: true });
    expect(JSON.stringify(s)).not.toContain('relay-test-qr');

    r.sock().open();
    const up = await fetch(`${base}/healthz`);
    expect(up.status).toBe(200);
    expect(((await up.json()) as { status: string }).status).toBe('ok');
    const text = await cli(['status']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`relay: running (pid ${process.pid}`);
    expect(text.stdout).toContain(`agentwire ${VERSION})`);
    expect(text.stdout).not.toContain('restart the relay to run it');
    expect(text.stdout).toContain('whatsapp  connected as …1111');
  });

  it('doctor sees one relay owning the state folder and does not probe its ports', async () => {
    const d = await cli(['doctor', '--json']);
    const findings = JSON.parse(d.stdout).findings as { check: string; status: string; message: string }[];
    expect(findings.find((f) => f.check === 'relay')).toMatchObject({
      status: 'ok',
      message: `one relay (pid ${process.pid}) owns this state folder`,
    });
    expect(findings.find((f) => f.check === 'console')?.message).toContain('served by the running relay');
  });
});

describe('console service edge cases', () => {
  it('a console port in use leaves the relay running without its console', async () => {
    const srv = createServer();
    await new Promise<void>((res) => srv.listen(0, '127.0.0.1', res));
    const port = (srv.address() as { port: number }).port;
    const other = await startTestRelay({ console: { port } });
    try {
      expect(other.printed).toEqual([]);
      expect(other.relay.channels.has('whatsapp')).toBe(true);
    } finally {
      await other.stop();
      srv.close();
    }
  });

  it('under a service manager the start line names the token file instead of printing the token', () => {
    expect(startLine('http://127.0.0.1:8788/?token=abc', true, '/h/console.token')).toBe(
      'Web console: http://127.0.0.1:8788/?token=abc\n',
    );
    const quiet = startLine('http://127.0.0.1:8788/?token=abc', false, '/h/console.token');
    expect(quiet).not.toContain('abc');
    expect(quiet).toContain('/h/console.token');
  });
});

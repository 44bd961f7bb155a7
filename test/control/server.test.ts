import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { callControl } from '../../src/control/client.js';
import { MethodError, MethodRegistry } from '../../src/control/methods.js';
import { type ControlServer, startControlServer } from '../../src/control/server.js';
import { memoryLog } from '../queue/helpers.js';

let dir: string;
let server: ControlServer | undefined;
afterEach(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function start() {
  dir = mkdtempSync(join(tmpdir(), 'aw-ctl-'));
  const path = join(dir, 'relay.sock');
  writeFileSync(path, 'stale leftover');
  const registry = new MethodRegistry();
  registry.register('echo', async (p) => ({ echoed: p }));
  registry.register('refuse', async () => {
    throw new MethodError('no, and here is why');
  });
  registry.register('crash', async () => {
    throw new Error('internal detail /secret/path');
  });
  const { log, lines } = memoryLog();
  server = await startControlServer(path, registry, log);
  return { path, lines, registry };
}

describe('control socket', () => {
  it('replaces a stale socket file, is private, and answers by method', async () => {
    const { path } = await start();
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(await callControl(path, 'echo', { a: 1 })).toEqual({ ok: true, result: { echoed: { a: 1 } } });
    expect(await callControl(path, 'refuse')).toEqual({
      ok: false,
      error: 'no, and here is why',
      notRunning: false,
    });
    expect(await callControl(path, 'missing')).toMatchObject({
      ok: false,
      error: 'unknown method missing (known: crash, echo, refuse)',
    });
  });

  it('hides internal errors from the caller and logs them', async () => {
    const { path, lines } = await start();
    expect(await callControl(path, 'crash')).toEqual({
      ok: false,
      error: 'crash failed; see the relay log',
      notRunning: false,
    });
    expect(lines.some((l) => l.msg === 'control method failed')).toBe(true);
  });

  it('answers several requests on one connection, and a bad line with an error', async () => {
    const { path } = await start();
    const answers = await new Promise<string[]>((resolve) => {
      const s = connect(path);
      let buf = '';
      s.on('data', (d) => {
        buf += d.toString();
        const lines = buf.split('\n').filter(Boolean);
        if (lines.length === 3) {
          s.end();
          resolve(lines);
        }
      });
      s.write('{"id":1,"method":"echo","params":1}\nnot json\n{"id":2,"method":"echo","params":2}\n');
    });
    expect(
      answers.map((a) => JSON.parse(a)).sort((x, y) => String(x.id).localeCompare(String(y.id))),
    ).toEqual([
      { id: 1, ok: true, result: { echoed: 1 } },
      { id: 2, ok: true, result: { echoed: 2 } },
      { id: null, ok: false, error: 'not JSON' },
    ]);
  });

  it('the caller refuses an answer over 16 MiB instead of holding all of it', async () => {
    const { path, registry } = await start();
    registry.register('big', async () => 'x'.repeat(17 * 1024 * 1024));
    expect(await callControl(path, 'big', undefined, { timeoutMs: 30_000 })).toEqual({
      ok: false,
      error: 'the relay sent an answer too large to read',
      notRunning: false,
    });
    expect(await callControl(path, 'echo', 1)).toEqual({ ok: true, result: { echoed: 1 } });
  });

  it('a registry refuses a method registered twice', async () => {
    const { registry } = await start();
    expect(() => registry.register('echo', async () => 1)).toThrow('registered twice');
  });

  it('reports a relay that is not running', async () => {
    dir = mkdtempSync(join(tmpdir(), 'aw-ctl-'));
    expect(await callControl(join(dir, 'relay.sock'), 'status')).toEqual({
      ok: false,
      error: 'the relay is not running',
      notRunning: true,
    });
  });
});

// The relay lock against real processes: a holder in another process that is SIGKILLed (its socket
// file stays, nobody listens), a lock file naming a live unrelated PID, two starters racing.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireLock, probeLock } from '../../src/store/home-lock.js';

let dir: string;
const children: ChildProcess[] = [];
const servers: Server[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const s of servers.splice(0)) s.close();
  rmSync(dir, { recursive: true, force: true });
});

function home(): { path: string; stateDir: string } {
  dir = mkdtempSync(join(tmpdir(), 'aw-lock-'));
  return { path: join(dir, 'relay.lock'), stateDir: dir };
}

/**
 * A socket file at `path` whose process was SIGKILLed: the kernel closed the listener, the file
 * stays (no close handler ran), exactly what a killed relay leaves.
 */
function leftoverSocket(path: string): void {
  const script = `require('node:net').createServer().listen(${JSON.stringify(path)}, () => process.kill(process.pid, 'SIGKILL'))`;
  const r = spawnSync(process.execPath, ['-e', script]);
  expect(r.signal).toBe('SIGKILL');
  expect(statSync(path).isSocket()).toBe(true);
}

/** A long-lived unrelated process (its PID is what a stale PID-file lock might name). */
function unrelated(): ChildProcess {
  const c = spawn('sleep', ['60'], { stdio: 'ignore' });
  children.push(c);
  return c;
}

function listen(path: string, onConn: (s: import('node:net').Socket) => void): Promise<void> {
  const srv = createServer(onConn);
  servers.push(srv);
  return new Promise((r) => srv.listen(path, () => r()));
}

describe('relay lock (a socket the kernel releases when its holder dies)', () => {
  it('is taken once; a second taker is refused with the holder PID; release frees it', async () => {
    const { path, stateDir } = home();
    const first = await acquireLock(path, stateDir);
    expect(first.ok).toBe(true);
    expect(statSync(path).isSocket()).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(await acquireLock(path, stateDir)).toEqual({ ok: false, pid: process.pid, reason: 'held' });
    expect(await probeLock(path, stateDir)).toEqual({ type: 'live', pid: process.pid });
    if (first.ok) await first.release();
    expect(existsSync(path)).toBe(false);
    expect(await probeLock(path, stateDir)).toEqual({ type: 'none' });
    const again = await acquireLock(path, stateDir);
    expect(again.ok).toBe(true);
    if (again.ok) await again.release();
  });

  it('takes over the socket left by a SIGKILLed holder', async () => {
    const { path, stateDir } = home();
    leftoverSocket(path);
    expect(await probeLock(path, stateDir)).toEqual({ type: 'stale' });
    const r = await acquireLock(path, stateDir);
    expect(r.ok).toBe(true);
    expect(await probeLock(path, stateDir)).toEqual({ type: 'live', pid: process.pid });
    if (r.ok) await r.release();
  });

  it('a lock file naming a live unrelated PID (an old PID lock, or a reused PID) is taken over', async () => {
    const { path, stateDir } = home();
    const other = unrelated();
    writeFileSync(path, `${other.pid}\n`, { mode: 0o600 });
    expect(await probeLock(path, stateDir)).toEqual({ type: 'stale' });
    const r = await acquireLock(path, stateDir);
    expect(r.ok).toBe(true);
    if (r.ok) await r.release();
  });

  it('a listener that names another state folder is not this folder’s owner', async () => {
    const { path, stateDir } = home();
    const elsewhere = join(dir, 'other');
    mkdirSync(elsewhere);
    const st = statSync(elsewhere);
    await listen(path, (s) =>
      s.end(`${JSON.stringify({ tag: 'agentwire-relay-lock', pid: 4242, dev: st.dev, ino: st.ino })}\n`),
    );
    expect(await probeLock(path, stateDir)).toEqual({ type: 'stale' });
    expect(await probeLock(path, elsewhere)).toEqual({ type: 'live', pid: 4242 });
  });

  it('a live listener that says nothing is refused, never called stale', async () => {
    const { path, stateDir } = home();
    await listen(path, () => undefined);
    expect(await probeLock(path, stateDir, 200)).toEqual({ type: 'silent' });
    expect(await acquireLock(path, stateDir, { probeTimeoutMs: 200 })).toEqual({
      ok: false,
      pid: undefined,
      reason: 'silent',
    });
    expect(statSync(path).isSocket()).toBe(true);
  });

  it('two starters taking over one leftover lock at the same moment: exactly one wins', async () => {
    const { path, stateDir } = home();
    leftoverSocket(path);
    let second: Promise<Awaited<ReturnType<typeof acquireLock>>> | undefined;
    // The second starter arrives while the first holds the takeover guard.
    const first = await acquireLock(path, stateDir, {
      onTakeover: () => {
        second ??= acquireLock(path, stateDir);
      },
    });
    expect(first.ok).toBe(true);
    expect(await second).toEqual({ ok: false, pid: process.pid, reason: 'held' });
    // No guard or temp file is left behind.
    expect(readdirSync(dir)).toEqual(['relay.lock']);
    if (first.ok) await first.release();
  });

  it('a takeover guard left by a starter that died mid-takeover is cleared by its age, not its PID', async () => {
    const { path, stateDir } = home();
    leftoverSocket(path);
    const guard = `${path}.takeover`;
    // Its PID is alive (an unrelated process): only the age tells it is stale.
    writeFileSync(guard, `${unrelated().pid}\n`);
    const old = (Date.now() - 60_000) / 1000;
    utimesSync(guard, old, old);
    const r = await acquireLock(path, stateDir);
    expect(r.ok).toBe(true);
    expect(readdirSync(dir)).toEqual(['relay.lock']);
    if (r.ok) await r.release();
  });
});

describe('relay lock where a unix socket cannot be', () => {
  it('a state folder path too long for a socket is a clear error, not a crash', async () => {
    dir = mkdtempSync(join(tmpdir(), 'aw-lock-'));
    const deep = join(dir, 'd'.repeat(120));
    mkdirSync(deep);
    await expect(acquireLock(join(deep, 'relay.lock'), deep)).rejects.toThrow(/too long.*AGENTWIRE_HOME/);
  });
});

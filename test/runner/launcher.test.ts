// The launcher (src/runner/launcher/): real launcher processes, real children. What a relay relies
// on: bytes and order intact, stdin, exits and signals as the launcher saw them, start failures as
// values, a group the relay can kill by pid, a launcher that dies taken as an error by every open
// handle and replaced on the next launch, and nothing left running afterwards.
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type LaunchExit,
  type Launcher,
  type LauncherOptions,
  type LaunchHandle,
  type LaunchRequest,
  type LaunchStart,
  startLauncher,
} from '../../src/runner/launcher/client.js';

const dir = mkdtempSync(join(tmpdir(), 'aw-launcher-'));
const node = process.execPath;
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
const launchers: Launcher[] = [];
const strays: number[] = [];

afterAll(async () => {
  for (const l of launchers) await l.stop();
  for (const pid of strays) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

function script(name: string, body: string): string {
  const file = join(dir, name);
  writeFileSync(file, body);
  return file;
}

/** True while the process exists and is not a zombie waiting to be reaped. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

async function waitFor(cond: () => boolean, ms = 5000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; ) {
    if (cond()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return cond();
}

const waitGone = (pid: number) => waitFor(() => !alive(pid));

function newLauncher(opts?: LauncherOptions): Launcher {
  const l = startLauncher(opts);
  launchers.push(l);
  return l;
}

interface Collected {
  start: LaunchStart;
  stdout: () => Buffer;
  stderr: () => Buffer;
  /** Every event in order: 'out', 'err', 'out_end', 'err_end', 'exit'. */
  events: string[];
}

async function run(l: Launcher, req: Omit<LaunchRequest, 'env'> & { env?: Record<string, string> }) {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const events: string[] = [];
  const start = await l.launch({
    env,
    ...req,
    onStdout: (c) => {
      out.push(c);
      events.push('out');
    },
    onStderr: (c) => {
      err.push(c);
      events.push('err');
    },
    onStdoutEnd: () => events.push('out_end'),
    onStderrEnd: () => events.push('err_end'),
    onExit: () => events.push('exit'),
  });
  const c: Collected = { start, stdout: () => Buffer.concat(out), stderr: () => Buffer.concat(err), events };
  return c;
}

function started(s: LaunchStart): LaunchHandle {
  if (s.type !== 'started') throw new Error(`expected a start, got ${JSON.stringify(s)}`);
  return s.handle;
}

const l = newLauncher();

describe('launcher', () => {
  it('runs /bin/true and reports its exit', async () => {
    const c = await run(l, { file: '/bin/true', args: [] });
    const h = started(c.start);
    expect(h.pid).toBeGreaterThan(0);
    expect(await h.closed).toEqual({ type: 'exited', code: 0, signal: null });
    expect(c.stdout().length).toBe(0);
  });

  it('reports the exit code, stdout and stderr, each pipe ending after its last chunk', async () => {
    const c = await run(l, {
      file: node,
      args: ['-e', 'process.stdout.write("a\\nb\\n"); process.stderr.write("oops"); process.exitCode = 3;'],
    });
    const h = started(c.start);
    expect(await h.closed).toEqual({ type: 'exited', code: 3, signal: null });
    expect(c.stdout().toString()).toBe('a\nb\n');
    expect(c.stderr().toString()).toBe('oops');
    expect(c.events.lastIndexOf('out')).toBeLessThan(c.events.indexOf('out_end'));
    expect(c.events.lastIndexOf('err')).toBeLessThan(c.events.indexOf('err_end'));
    expect(c.events).toContain('exit');
  });

  it('carries 4 MiB of every byte value intact and in order', async () => {
    // Byte i of the output is (i * 7 + (i >> 12)) & 255: any lost, doubled or reordered chunk shows.
    const gen = script(
      'bytes.js',
      `const n = 4 * 1024 * 1024; const b = Buffer.alloc(n);
       for (let i = 0; i < n; i++) b[i] = (i * 7 + (i >> 12)) & 255;
       let at = 0;
       (function more() { while (at < n) { const end = Math.min(n, at + 10007); const ok = process.stdout.write(b.subarray(at, end)); at = end; if (!ok) return process.stdout.once('drain', more); } })();`,
    );
    const c = await run(l, { file: node, args: [gen] });
    const h = started(c.start);
    expect(await h.closed).toEqual({ type: 'exited', code: 0, signal: null });
    const got = c.stdout();
    const want = Buffer.alloc(4 * 1024 * 1024);
    for (let i = 0; i < want.length; i++) want[i] = (i * 7 + (i >> 12)) & 255;
    expect(got.length).toBe(want.length);
    expect(createHash('sha256').update(got).digest('hex')).toBe(
      createHash('sha256').update(want).digest('hex'),
    );
  });

  it('holds a flood in the child, not in the launcher, while the relay does not read', async () => {
    // 96 MiB written as fast as the pipe takes it. On its first chunk the relay's loop is held (up
    // to 1.5 s, or until the launcher grew by 48 MiB): the launcher must pause the child's pipe
    // instead of queueing the flood in its own memory for a relay that is not reading.
    const flood = script(
      'flood.js',
      `const b = Buffer.alloc(64 * 1024, 120); let left = 96 * 16;
       (function more() { while (left > 0) { left--; if (!process.stdout.write(b)) return process.stdout.once('drain', more); } })();`,
    );
    const own = newLauncher();
    const rss = () =>
      Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${own.pid()}/status`, 'utf8'))?.[1]) * 1024;
    let bytes = 0;
    let grew = -1;
    const h = started(
      await own.launch({
        file: node,
        args: [flood],
        env,
        onStdout: (c) => {
          if (bytes === 0) {
            const base = rss();
            const end = performance.now() + 1500;
            while (performance.now() < end && rss() - base < 48 * 1024 * 1024);
            grew = rss() - base;
          }
          bytes += c.length;
        },
      }),
    );
    expect(await h.closed).toEqual({ type: 'exited', code: 0, signal: null });
    expect(bytes).toBe(96 * 1024 * 1024);
    expect(grew).toBeGreaterThanOrEqual(0);
    expect(grew).toBeLessThan(16 * 1024 * 1024);
    await own.stop();
  });

  it('round-trips stdin (2 MiB, written in pieces) to stdout', async () => {
    const c = await run(l, { file: node, args: ['-e', 'process.stdin.pipe(process.stdout)'], stdin: true });
    const h = started(c.start);
    const piece = Buffer.alloc(64 * 1024);
    const sent: Buffer[] = [];
    for (let i = 0; i < 32; i++) {
      piece.fill(i * 5 + 1);
      piece[0] = 0;
      const copy = Buffer.from(piece);
      sent.push(copy);
      h.write(copy);
    }
    h.write('tail\n');
    h.end();
    expect(await h.closed).toEqual({ type: 'exited', code: 0, signal: null });
    expect(c.stdout().equals(Buffer.concat([...sent, Buffer.from('tail\n')]))).toBe(true);
  });

  it('ignores stdin unless asked for, so a program reading it sees EOF at once', async () => {
    const c = await run(l, {
      file: node,
      args: [
        '-e',
        'let n = 0; process.stdin.on("data", (d) => { n += d.length; }).on("end", () => console.log("eof " + n));',
      ],
    });
    expect(await started(c.start).closed).toEqual({ type: 'exited', code: 0, signal: null });
    expect(c.stdout().toString()).toBe('eof 0\n');
  });

  it('reports death by a signal', async () => {
    const c = await run(l, {
      file: node,
      args: ['-e', 'process.kill(process.pid, "SIGTERM"); setInterval(() => {}, 1000);'],
    });
    expect(await started(c.start).closed).toEqual({ type: 'exited', code: null, signal: 'SIGTERM' });
  });

  it('passes exactly the given environment, cwd and arguments (no shell)', async () => {
    const secret = 'aw-tool-token-4f1c9e';
    const c = await run(l, {
      file: node,
      args: [
        '-e',
        'console.log(JSON.stringify({ env: process.env, cwd: process.cwd(), argv: process.argv.slice(1) }))',
        '$HOME',
        '; echo hi',
      ],
      cwd: dir,
      env: { PATH: env.PATH, AGENTWIRE_TOOL_TOKEN: secret },
    });
    expect(await started(c.start).closed).toMatchObject({ code: 0 });
    const seen = JSON.parse(c.stdout().toString()) as {
      env: Record<string, string>;
      cwd: string;
      argv: string[];
    };
    expect(seen.env).toEqual({ PATH: env.PATH, AGENTWIRE_TOOL_TOKEN: secret });
    expect(seen.cwd).toBe(dir);
    expect(seen.argv).toEqual(['$HOME', '; echo hi']);
    // The token crossed the IPC pipe only: not the launcher's environment, not its command line.
    const lp = l.pid() as number;
    expect(readFileSync(`/proc/${lp}/environ`).includes(secret)).toBe(false);
    expect(readFileSync(`/proc/${lp}/cmdline`).includes(secret)).toBe(false);
  });

  it('returns start failures as values: a missing program, one not executable, a NUL byte', async () => {
    const missing = await l.launch({ file: 'aw-no-such-program-7c1', args: [], env });
    expect(missing).toMatchObject({ type: 'not_found', file: 'aw-no-such-program-7c1' });
    const plain = script('not-executable.sh', '#!/bin/sh\necho hi\n');
    chmodSync(plain, 0o644);
    expect(await l.launch({ file: plain, args: [], env })).toMatchObject({
      type: 'spawn_failed',
      code: 'EACCES',
    });
    expect(await l.launch({ file: node, args: ['a\0b'], env })).toMatchObject({ type: 'spawn_failed' });
    // The launcher is still there and still works.
    expect(await started((await run(l, { file: '/bin/true', args: [] })).start).closed).toMatchObject({
      code: 0,
    });
  });

  it('starts each program leading its own group, which the relay kills by pid', async () => {
    const parent = script(
      'group.js',
      `const { spawn } = require('node:child_process');
       const g = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
       console.log("grandchild " + g.pid);
       setInterval(() => {}, 1000);`,
    );
    let grand = 0;
    const h = started(
      await l.launch({
        file: node,
        args: [parent],
        env,
        onStdout: (c) => {
          const m = /grandchild (\d+)/.exec(c.toString());
          if (m) grand = Number(m[1]);
        },
      }),
    );
    expect(await waitFor(() => grand > 0)).toBe(true);
    strays.push(h.pid, grand);
    expect(readFileSync(`/proc/${h.pid}/stat`, 'utf8').split(') ')[1]?.split(' ')[2]).toBe(String(h.pid));
    process.kill(-h.pid, 'SIGKILL');
    expect(await h.closed).toEqual({ type: 'exited', code: null, signal: 'SIGKILL' });
    expect(await waitGone(grand)).toBe(true);
  });

  it('release lets go of pipes a grandchild holds open after the program exited', async () => {
    const parent = script(
      'holder.js',
      `const { spawn } = require('node:child_process');
       const g = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: ['ignore', 'inherit', 'inherit'], detached: true });
       console.log("holder " + g.pid);
       g.unref();`,
    );
    const c = await run(l, { file: node, args: [parent] });
    const h = started(c.start);
    expect(await h.exit).toEqual({ type: 'exited', code: 0, signal: null });
    const holder = Number(/holder (\d+)/.exec(c.stdout().toString())?.[1]);
    strays.push(holder);
    expect(alive(holder)).toBe(true);
    expect(c.events).not.toContain('out_end');
    h.release();
    expect(await h.closed).toEqual({ type: 'exited', code: 0, signal: null });
    expect(c.events).toContain('out_end');
    process.kill(holder, 'SIGKILL');
    expect(await waitGone(holder)).toBe(true);
  });

  it('a launcher killed mid-run: open handles end with an error, their groups die, the next launch starts a new one', async () => {
    const own = newLauncher();
    const a = started(await own.launch({ file: node, args: ['-e', 'setInterval(() => {}, 1000)'], env }));
    const b = started(await own.launch({ file: node, args: ['-e', 'setInterval(() => {}, 1000)'], env }));
    strays.push(a.pid, b.pid);
    const first = own.pid() as number;
    process.kill(first, 'SIGKILL');
    const ends: LaunchExit[] = await Promise.all([a.exit, a.closed, b.closed]);
    for (const e of ends) expect(e).toMatchObject({ type: 'launcher_died' });
    expect(await waitGone(a.pid)).toBe(true);
    expect(await waitGone(b.pid)).toBe(true);
    const c = await run(own, { file: node, args: ['-e', 'console.log("again")'] });
    expect(await started(c.start).closed).toEqual({ type: 'exited', code: 0, signal: null });
    expect(c.stdout().toString()).toBe('again\n');
    expect(own.pid()).not.toBe(first);
    expect(alive(first)).toBe(false);
  });

  it('stop ends the launcher and what it still runs; nothing is left', async () => {
    const own = newLauncher();
    const h = started(await own.launch({ file: node, args: ['-e', 'setInterval(() => {}, 1000)'], env }));
    strays.push(h.pid);
    const lp = own.pid() as number;
    await own.stop();
    expect(await h.closed).toMatchObject({ type: 'launcher_died' });
    expect(await waitGone(h.pid)).toBe(true);
    expect(alive(lp)).toBe(false);
  });

  it('an idle launcher does not keep the relay alive, and stop() resolves before the relay ends', async () => {
    const client = join(import.meta.dirname, '../../dist/runner/launcher/client.js');
    const idle = script(
      'idle.mjs',
      `import { startLauncher } from ${JSON.stringify(client)}; startLauncher();`,
    );
    const stopping = script(
      'stopping.mjs',
      `import { startLauncher } from ${JSON.stringify(client)};
       const l = startLauncher();
       const s = await l.launch({ file: '/bin/true', args: [], env: {} });
       console.log(s.type, JSON.stringify(await s.handle.closed));
       const pid = l.pid();
       await l.stop();
       console.log('stopped', pid);`,
    );
    const c1 = await run(l, { file: node, args: [idle] });
    expect(await started(c1.start).closed).toEqual({ type: 'exited', code: 0, signal: null });
    const c2 = await run(l, { file: node, args: [stopping] });
    expect(await started(c2.start).closed).toEqual({ type: 'exited', code: 0, signal: null });
    const lines = c2.stdout().toString().trim().split('\n');
    expect(lines[0]).toBe('started {"type":"exited","code":0,"signal":null}');
    const stoppedPid = Number(/^stopped (\d+)$/.exec(lines[1] ?? '')?.[1]);
    expect(stoppedPid).toBeGreaterThan(0);
    expect(alive(stoppedPid)).toBe(false);
  });

  it('a relay killed with SIGKILL takes its launcher and the runs it had along', async () => {
    const client = join(import.meta.dirname, '../../dist/runner/launcher/client.js');
    const relay = script(
      'relay.mjs',
      `import { startLauncher } from ${JSON.stringify(client)};
       const l = startLauncher();
       const s = await l.launch({ file: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'], env: {} });
       console.log(l.pid(), s.handle.pid);
       setInterval(() => {}, 1000);`,
    );
    const c = await run(l, { file: node, args: [relay] });
    const h = started(c.start);
    strays.push(h.pid);
    const pids = () => (/^(\d+) (\d+)\n/.exec(c.stdout().toString()) ?? []).slice(1).map(Number);
    expect(await waitFor(() => pids().length === 2)).toBe(true);
    const [launcherPid, runPid] = pids() as [number, number];
    strays.push(launcherPid, runPid);
    expect(alive(launcherPid) && alive(runPid)).toBe(true);
    process.kill(h.pid, 'SIGKILL');
    expect(await h.closed).toEqual({ type: 'exited', code: null, signal: 'SIGKILL' });
    expect(await waitGone(launcherPid)).toBe(true);
    expect(await waitGone(runPid)).toBe(true);
  });

  it('a launcher that cannot start is not forked again at once, and is tried again later and later', async () => {
    // A launcher script that notes each start's time and dies before it is ready.
    const log = join(dir, 'starts.log');
    const bad = script(
      'bad-launcher.mjs',
      `import { appendFileSync } from 'node:fs'; appendFileSync(${JSON.stringify(log)}, Date.now() + '\\n'); process.exit(1);`,
    );
    const starts = () =>
      existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).map(Number) : [];
    const slow = newLauncher({ script: bad, retryMs: { first: 60_000, last: 60_000 } });
    expect(await slow.launch({ file: '/bin/true', args: [], env })).toMatchObject({
      type: 'launcher_failed',
    });
    expect(starts()).toHaveLength(1);
    const again = await slow.launch({ file: '/bin/true', args: [], env });
    expect(again).toMatchObject({ type: 'launcher_failed' });
    expect(again.type === 'launcher_failed' && again.message).toMatch(/next try in \d+ ms/);
    expect(starts()).toHaveLength(1);

    rmSync(log);
    const quick = newLauncher({ script: bad, retryMs: { first: 100, last: 1000 } });
    for (const end = Date.now() + 10_000; starts().length < 3 && Date.now() < end; ) {
      expect(await quick.launch({ file: '/bin/true', args: [], env })).toMatchObject({
        type: 'launcher_failed',
      });
      await new Promise((r) => setTimeout(r, 10));
    }
    const [a = 0, b = 0, c = 0] = starts();
    expect(starts()).toHaveLength(3);
    // 100 ms after the first failed start, 200 after the second (from when each was seen failing).
    expect(b - a).toBeGreaterThanOrEqual(100);
    expect(c - b).toBeGreaterThanOrEqual(200);
  });

  it('the compiled launcher (dist/) works the same', async () => {
    const compiled = join(import.meta.dirname, '../../dist/runner/launcher/launcher-process.js');
    expect(existsSync(compiled)).toBe(true);
    const own = newLauncher({ script: compiled });
    const c = await run(own, { file: node, args: ['-e', 'process.stdout.write("ok")'] });
    expect(await started(c.start).closed).toEqual({ type: 'exited', code: 0, signal: null });
    expect(c.stdout().toString()).toBe('ok');
    await own.stop();
  });
});

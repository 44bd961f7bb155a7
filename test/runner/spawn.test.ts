import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, describe, expect, it } from 'vitest';
import { startLauncher } from '../../src/runner/launcher/client.js';
import { type SpawnOptions, spawnProcess as spawnDirect } from '../../src/runner/spawn.js';

const dir = mkdtempSync(join(tmpdir(), 'aw-spawn-'));
const node = process.execPath;
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
const strays: number[] = [];

// A real full GC, so memory assertions measure what is retained rather than garbage not yet collected.
v8.setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
function retained(): number {
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

/**
 * The least of three `retained()` readings a turn apart: a stream's last chunks can stay reachable
 * from callbacks due on the next turn, and a reading taken then overstates what is kept.
 */
async function settledRetained(): Promise<number> {
  let least = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 3; i++) {
    await new Promise((r) => setImmediate(r));
    least = Math.min(least, retained());
  }
  return least;
}

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

/**
 * Runs with a timeout of 500 ms, doubled (up to 8 s) while `ready()` was still false when the run
 * ended: the timeout counts from the spawn, and on a loaded machine a Node child (and its own
 * child) can take longer than that to start. The run that counts is one that timed out after the
 * processes it is about were up.
 */
async function timedOutWhenReady<T>(
  ready: () => boolean,
  run: (timeoutMs: number) => Promise<T>,
): Promise<T> {
  for (let timeoutMs = 500; ; timeoutMs *= 2) {
    const r = await run(timeoutMs);
    if (ready() || timeoutMs >= 8000) return r;
  }
}

async function waitGone(pid: number): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return false;
}

// Every case runs both ways a program can start: here (execa), and from a launcher process.
const launcher = startLauncher();

afterAll(async () => {
  await launcher.stop();
  rmSync(dir, { recursive: true, force: true });
  for (const pid of strays) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

describe.each(['here', 'from a launcher'] as const)('spawnProcess, started %s', (way) => {
  const spawnProcess = (o: SpawnOptions) => spawnDirect(way === 'here' ? o : { ...o, launcher });

  it('reports the exit code, stdout lines and stderr', async () => {
    const f = script(
      'exit3.js',
      'console.log("a"); console.log("b"); process.stderr.write("oops"); process.exit(3);',
    );
    const lines: string[] = [];
    const r = await spawnProcess({ file: node, args: [f], env, onStdoutLine: (l) => lines.push(l) });
    expect(r).toMatchObject({
      type: 'exited',
      exitCode: 3,
      signal: null,
      stderr: 'oops',
      stdoutTruncated: false,
    });
    if (r.type !== 'exited') return;
    expect(r.stdoutLines).toEqual(['a', 'b']);
    expect(lines).toEqual(['a', 'b']);
  });

  it('reports death by a signal', async () => {
    const f = script('suicide.js', 'process.kill(process.pid, "SIGKILL");');
    const r = await spawnProcess({ file: node, args: [f], env });
    expect(r).toMatchObject({ type: 'exited', exitCode: null, signal: 'SIGKILL' });
  });

  it('hands on a half-written last line', async () => {
    const f = script('half.js', 'process.stdout.write(\'{"a":1}\\n{"b":\');');
    const r = await spawnProcess({ file: node, args: [f], env });
    expect(r.type === 'exited' && r.stdoutLines).toEqual(['{"a":1}', '{"b":']);
  });

  it('ignores stdin unless fed, so a script waiting for EOF does not hang', async () => {
    const f = script(
      'stdin.js',
      'let s=""; process.stdin.on("data", d => s += d); process.stdin.on("end", () => console.log("got:" + s));',
    );
    const ignored = await spawnProcess({ file: node, args: [f], env, timeoutMs: 10_000 });
    expect(ignored).toMatchObject({ type: 'exited', exitCode: 0, stdout: 'got:' });
    const fed = await spawnProcess({ file: node, args: [f], env, input: '--not-a-flag', timeoutMs: 10_000 });
    expect(fed).toMatchObject({ type: 'exited', stdout: 'got:--not-a-flag' });
  });

  it('copes with a child that exits without reading a large stdin', async () => {
    const r = await spawnProcess({
      file: node,
      args: ['-e', 'process.exit(0)'],
      env,
      input: 'x'.repeat(8_000_000),
    });
    expect(r).toMatchObject({ type: 'exited', exitCode: 0 });
  });

  it('passes only the explicit environment, minus nested-agent variables', async () => {
    const f = script('env.js', 'console.log(JSON.stringify(Object.keys(process.env).sort()))');
    const r = await spawnProcess({
      file: node,
      args: [f],
      env: { ...env, FOO: '1', CLAUDECODE: '1', CLAUDE_CODE_ENTRYPOINT: 'cli' },
    });
    expect(r.type).toBe('exited');
    if (r.type !== 'exited') return;
    const keys = JSON.parse(r.stdout) as string[];
    expect(keys).toContain('FOO');
    expect(keys).not.toContain('CLAUDECODE');
    expect(keys).not.toContain('CLAUDE_CODE_ENTRYPOINT');
    expect(keys).not.toContain('HOME');
  });

  it('passes arguments verbatim, without a shell', async () => {
    const f = script('argv.js', 'console.log(JSON.stringify(process.argv.slice(2)))');
    const args = ['--help', '$(touch pwned)', '; rm -rf /', '"quoted" and spaces'];
    const r = await spawnProcess({ file: node, args: [f, ...args], env, cwd: dir });
    expect(r.type === 'exited' && JSON.parse(r.stdout)).toEqual(args);
  });

  it('kills the whole group on timeout, including a grandchild that ignores SIGTERM', async () => {
    const grand = script(
      'grand.js',
      'process.on("SIGTERM", () => {}); console.log("grandchild " + process.pid); setInterval(() => {}, 1000);',
    );
    const parent = script(
      'parent.js',
      `const { spawn } = require('node:child_process');
       spawn(process.execPath, [${JSON.stringify(grand)}], { stdio: 'inherit' });
       process.on('SIGTERM', () => process.exit(143));
       setInterval(() => {}, 1000);`,
    );
    let grandPid = 0;
    const r = await timedOutWhenReady(
      () => grandPid > 0,
      (timeoutMs) =>
        spawnProcess({
          file: node,
          args: [parent],
          env,
          timeoutMs,
          killGraceMs: 300,
          onStdoutLine: (l) => {
            const m = /^grandchild (\d+)$/.exec(l);
            if (m) grandPid = Number(m[1]);
          },
        }),
    );
    expect(r.type).toBe('timeout');
    expect(grandPid).toBeGreaterThan(0);
    strays.push(grandPid);
    expect(await waitGone(grandPid)).toBe(true);
  });

  // Linux only: elsewhere there is no /proc to find the mark in (src/runner/run-mark.ts).
  it.skipIf(process.platform !== 'linux').each(['timeout', 'abort'] as const)(
    'on %s also kills a grandchild that left the group with setsid and ignores SIGTERM',
    async (how) => {
      const grand = script(
        'daemon.js',
        'process.on("SIGTERM", () => {}); process.send("up"); setInterval(() => {}, 1000);',
      );
      // The helper leads its own session (node's `detached` is setsid(2)) and holds none of our pipes,
      // so neither the group kill nor the pipes can reach it: only the run's mark can. It is named
      // once it ignores SIGTERM (it says so over IPC, which the parent then closes).
      const parent = script(
        `setsid-${how}.js`,
        `const { spawn } = require('node:child_process');
         const c = spawn(process.execPath, [${JSON.stringify(grand)}], { stdio: ['ignore', 'ignore', 'ignore', 'ipc'], detached: true });
         c.unref();
         c.once('message', () => { c.disconnect(); console.log("daemon " + c.pid); });
         setInterval(() => {}, 1000);`,
      );
      let daemon = 0;
      const ac = new AbortController();
      const r = await timedOutWhenReady(
        () => daemon > 0,
        (timeoutMs) =>
          spawnProcess({
            file: node,
            args: [parent],
            env,
            killGraceMs: 200,
            ...(how === 'timeout' ? { timeoutMs } : { signal: ac.signal }),
            onStdoutLine: (l) => {
              const m = /^daemon (\d+)$/.exec(l);
              if (m) {
                daemon = Number(m[1]);
                if (how === 'abort') ac.abort();
              }
            },
          }),
      );
      expect(r.type).toBe(how === 'timeout' ? 'timeout' : 'aborted');
      expect(daemon).toBeGreaterThan(0);
      strays.push(daemon);
      expect(await waitGone(daemon)).toBe(true);
    },
  );

  it('settles when a grandchild outside the group keeps the pipes open', async () => {
    // The parent exits once the grandchild said it is up (over IPC), not after a fixed delay that a
    // loaded machine can outlast before the grandchild has even started.
    const grand = script(
      'escape.js',
      'console.log("escaped " + process.pid); process.send("up"); setInterval(() => {}, 1000);',
    );
    const parent = script(
      'leave.js',
      `const { spawn } = require('node:child_process');
       const c = spawn(process.execPath, [${JSON.stringify(grand)}], { stdio: ['inherit', 'inherit', 'inherit', 'ipc'], detached: true });
       c.on('message', () => process.exit(0));`,
    );
    let escaped = 0;
    const r = await spawnProcess({
      file: node,
      args: [parent],
      env,
      pipeGraceMs: 200,
      onStdoutLine: (l) => {
        const m = /^escaped (\d+)$/.exec(l);
        if (m) escaped = Number(m[1]);
      },
    });
    if (escaped) strays.push(escaped);
    expect(r).toMatchObject({ type: 'exited', exitCode: 0 });
    expect(escaped).toBeGreaterThan(0);
  });

  it('caps a 100 MB flood, keeps reading so the child finishes, and stays bounded in memory', async () => {
    const f = script(
      'flood.js',
      `const line = Buffer.from('x'.repeat(1023) + '\\n');
       const chunk = Buffer.concat(Array(1024).fill(line));
       let n = 0;
       (function write() {
         while (n < 100) { n++; if (!process.stdout.write(chunk)) return process.stdout.once('drain', write); }
       })();`,
    );
    const before = await settledRetained();
    let streamed = 0;
    const r = await spawnProcess({
      file: node,
      args: [f],
      env,
      maxStdoutBytes: 1024 * 1024,
      onStdoutLine: () => {
        streamed++;
      },
    });
    // What stays reachable after a full GC: the capped output, not the 100 MB that went by.
    const grown = (await settledRetained()) - before;
    expect(r).toMatchObject({ type: 'exited', exitCode: 0, stdoutTruncated: true });
    if (r.type !== 'exited') return;
    expect(r.stdout.length).toBeLessThanOrEqual(1024 * 1024);
    expect(r.stdoutLines.length).toBeLessThanOrEqual(1024);
    expect(streamed).toBe(100 * 1024);
    // Keeping the flood would retain over 100 MB; allow for heap noise from the files that shared
    // this worker before (a CI run saw 43 MB from a single reading).
    expect(grown).toBeLessThan(64 * 1024 * 1024);
  });

  it('cuts one endless line at the cap', async () => {
    const f = script('longline.js', 'process.stdout.write("y".repeat(3 * 1024 * 1024));');
    const r = await spawnProcess({ file: node, args: [f], env, maxStdoutBytes: 64 * 1024 });
    expect(r).toMatchObject({ type: 'exited', stdoutTruncated: true });
    expect(r.type === 'exited' && r.stdout.length).toBeLessThanOrEqual(64 * 1024);
  });

  it('caps stderr separately', async () => {
    const f = script('err.js', 'process.stderr.write("e".repeat(200000)); console.log("fine");');
    const r = await spawnProcess({ file: node, args: [f], env, maxStderrBytes: 1000 });
    expect(r).toMatchObject({
      type: 'exited',
      stderrTruncated: true,
      stdoutTruncated: false,
      stdout: 'fine',
    });
    expect(r.type === 'exited' && r.stderr.length).toBeLessThanOrEqual(1000);
  });

  it('aborts on the signal, streaming lines before the end', async () => {
    const f = script('slow.js', 'console.log("first"); setInterval(() => {}, 1000);');
    const ac = new AbortController();
    const r = await spawnProcess({
      file: node,
      args: [f],
      env,
      signal: ac.signal,
      onStdoutLine: (l) => {
        if (l === 'first') ac.abort();
      },
    });
    expect(r).toMatchObject({ type: 'aborted', stdoutLines: ['first'] });
  });

  it('does not start at all when already aborted', async () => {
    const ac = new AbortController();
    ac.abort();
    const r = await spawnProcess({
      file: node,
      args: ['-e', 'require("fs").writeFileSync("x","")'],
      env,
      signal: ac.signal,
      cwd: dir,
    });
    expect(r.type).toBe('aborted');
  });

  it('tells a missing program from other start failures', async () => {
    const missing = await spawnProcess({ file: 'agentwire-no-such-cli', args: [], env });
    expect(missing).toMatchObject({ type: 'not_found', file: 'agentwire-no-such-cli' });
    const noCwd = await spawnProcess({ file: node, args: ['-e', '1'], env, cwd: join(dir, 'missing') });
    expect(noCwd.type).toBe('spawn_failed');
    const notExec = script('plain.txt', 'not a program');
    const denied = await spawnProcess({ file: notExec, args: [], env });
    expect(denied.type).toBe('spawn_failed');
  });

  it('refuses an argument or variable node cannot pass (a NUL byte) without starting anything', async () => {
    const arg = await spawnProcess({ file: node, args: ['-e', '1', 'a\0b'], env });
    expect(arg.type).toBe('spawn_failed');
    const variable = await spawnProcess({ file: node, args: ['-e', '1'], env: { ...env, X: 'a\0b' } });
    expect(variable.type).toBe('spawn_failed');
  });
});

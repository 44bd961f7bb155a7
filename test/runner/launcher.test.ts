// The launcher (src/runner/launcher/): real launcher processes, real children. What a relay relies
// on while a program runs: bytes and order intact, stdin, exits and signals as the launcher saw
// them, start failures as values, a group the relay can kill by pid. Its life (dying, stopping,
// restarting, the relay going): launcher-life.test.ts.
import { createHash } from 'node:crypto';
import { chmodSync, readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { alive, env, launcherFixture, node, run, started, waitFor, waitGone } from '../helpers/launcher.js';

const { dir, strays, script, newLauncher, cleanup } = launcherFixture('aw-launcher-');
afterAll(cleanup);

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

  it('forwards a fourth pipe when asked: what the program writes on its fd 3, then its end, while it runs', async () => {
    const fd3: Buffer[] = [];
    let fd3Ended = false;
    const c = await run(l, {
      file: 'sh',
      args: ['-c', 'printf ready >&3; exec 3>&-; read line; echo "got $line"'],
      stdin: true,
      fd3: true,
      onFd3: (b) => fd3.push(b),
      onFd3End: () => {
        fd3Ended = true;
      },
    });
    const h = started(c.start);
    // The end arrives as the program closes it, not with its exit: it still waits for its line.
    expect(await waitFor(() => fd3Ended)).toBe(true);
    expect(Buffer.concat(fd3).toString()).toBe('ready');
    expect(alive(h.pid)).toBe(true);
    h.write('x\n');
    h.end();
    expect(await h.closed).toEqual({ type: 'exited', code: 0, signal: null });
    expect(c.stdout().toString()).toBe('got x\n');
  });

  it('opens no fourth pipe unless asked', async () => {
    const c = await run(l, { file: 'sh', args: ['-c', 'printf ready >&3'] });
    const end = await started(c.start).closed;
    // sh: "3: Bad file descriptor", and a failed redirection is a failed command.
    expect(end).toMatchObject({ type: 'exited', signal: null });
    expect(end.type === 'exited' ? end.code : 0).not.toBe(0);
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
});

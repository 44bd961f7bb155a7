// The spawn-hold bench's spawning side (ways b and c): as a worker thread and as a forked launcher
// it must really start the program asked for, answer its pid before its exit, pass the exit code
// on, say when a program cannot start, and bring back all of the output when asked, or the bench
// would time a spawn that never happened or a copy it did not make.
// Real worker threads and real child processes.
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';

const SPAWNER = fileURLToPath(new URL('../../bench/lib/spawn-hold-spawner.mjs', import.meta.url));
const ENV = { PATH: '/usr/bin:/bin' };

type Reply = { id: number; pid?: number; ms?: number; out?: string; exit?: number | string; error?: string };

const workers: Worker[] = [];
const launchers: ChildProcess[] = [];
afterEach(async () => {
  for (const w of workers.splice(0)) await w.terminate();
  for (const c of launchers.splice(0)) {
    if (c.exitCode !== null || c.signalCode !== null) continue;
    const gone = once(c, 'exit');
    c.kill('SIGKILL');
    await gone;
  }
});

/** Rejects when the spawner exits, so a broken one fails the test at once instead of timing out. */
function death(e: Worker | ChildProcess): Promise<never> {
  return new Promise((_, reject) => {
    e.once('exit', (code: number | null) => reject(new Error(`the spawner exited (${code})`)));
  });
}

/** Sends one request and collects the replies for it until its exit or error. */
function ask(
  post: (m: unknown) => void,
  on: (f: (m: Reply) => void) => void,
  id: number,
  file: string,
  args: string[],
  forward = false,
): Promise<Reply[]> {
  return new Promise((resolve) => {
    const got: Reply[] = [];
    on((m) => {
      if (m.id !== id) return;
      got.push(m);
      if (m.exit !== undefined || m.error !== undefined) resolve(got);
    });
    post({ type: 'spawn', id, file, args, env: ENV, forward });
  });
}

async function checkSpawner(
  post: (m: unknown) => void,
  on: (f: (m: Reply) => void) => void,
  died: Promise<never>,
) {
  const ok = await Promise.race([ask(post, on, 1, process.execPath, ['-e', 'process.exit(3)']), died]);
  expect(ok.map((m) => Object.keys(m).sort().join(','))).toEqual(['id,ms,pid', 'exit,id']);
  const [started, ended] = ok as [Reply, Reply];
  expect(started.pid).toBeGreaterThan(0);
  expect(started.pid).not.toBe(process.pid);
  expect(started.ms).toBeGreaterThanOrEqual(0);
  expect(ended.exit).toBe(3);

  const missing = await Promise.race([ask(post, on, 2, '/nonexistent/aw-spawn-hold-test', []), died]);
  expect(missing).toHaveLength(1);
  expect(missing[0]?.error).toMatch(/ENOENT/);

  // Forwarded: every byte of stdout, in order, and all of it before the exit.
  const print = "for (let i = 0; i < 2000; i++) process.stdout.write('line ' + i + '\\n')";
  const fwd = await Promise.race([ask(post, on, 3, process.execPath, ['-e', print], true), died]);
  const text = Array.from({ length: 2000 }, (_, i) => `line ${i}\n`).join('');
  expect(fwd.at(-1)?.exit).toBe(0);
  expect(
    fwd
      .slice(0, -1)
      .map((m) => m.out ?? '')
      .join(''),
  ).toBe(text);
}

describe.runIf(process.platform === 'linux')('spawn-hold spawner', () => {
  it('as a worker thread: starts the program, pid before exit, the exit code, ENOENT, the output', async () => {
    const w = new Worker(SPAWNER);
    workers.push(w);
    const died = death(w);
    died.catch(() => {});
    await Promise.race([once(w, 'online'), died]);
    await checkSpawner(
      (m) => w.postMessage(m),
      (f) => w.on('message', f),
      died,
    );
  });

  it('as a launcher process: the same over IPC, and it leaves when told to stop', async () => {
    const c = fork(SPAWNER, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], env: ENV });
    launchers.push(c);
    const gone = once(c, 'exit');
    const died = death(c);
    died.catch(() => {});
    const [ready] = (await Promise.race([once(c, 'message'), died])) as [{ ready: number }];
    expect(ready.ready).toBe(c.pid);
    await checkSpawner(
      (m) => c.send(m as object),
      (f) => c.on('message', f),
      died,
    );
    c.send({ type: 'stop' });
    const [code] = await gone;
    expect(code).toBe(0);
  });
});

// The measuring process of bench/spawn-hold.bench.mjs (run on its own, so its heap and the order of
// its start are its own: `node bench/lib/spawn-hold-run.mjs`). It forks the launcher (way c) while
// it is small, starts the worker (way b), then grows its heap to a relay-like RSS and, in rounds,
// starts N short children (`/bin/true`, `node -e 0`, and a node printing 64 KiB that every way
// brings back to this thread), at most P at a time, one per turn of the loop, three ways: (a) child_process.spawn on this thread, what the relay does; (b) posted
// to the worker, which spawns; (c) sent over IPC to the launcher, which spawns. Meanwhile a 1 ms
// timer records every gap between its ticks on this thread (and monitorEventLoopDelay the timer's
// delay, as a cross-check). An idle window (the probe alone) per round is the floor. The ways
// alternate within a round, their order rotating between rounds, so the machine's other load falls
// on each alike. One line per window to stderr; the summary as JSON on stdout's last line.
import { fork, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { median, p99, procCpuMs } from './stats.mjs';

const N = Number(process.env.BENCH_SPAWN_HOLD_N ?? 40);
const P = Number(process.env.BENCH_SPAWN_HOLD_P ?? 4);
const ROUNDS = Number(process.env.BENCH_SPAWN_HOLD_ROUNDS ?? 8);
const RSS_MB = Number(process.env.BENCH_SPAWN_HOLD_RSS_MB ?? 200);
const IDLE_MS = 300;
const SPAWNER = join(dirname(fileURLToPath(import.meta.url)), 'spawn-hold-spawner.mjs');
const ENV = { PATH: '/usr/bin:/bin' };
/** `out`: a child that prints this much (100-byte lines), which every way must bring to this thread. */
const OUT_LINES = Math.round((Number(process.env.BENCH_SPAWN_HOLD_OUT_KB ?? 64) * 1024) / 100);
const KINDS = {
  true: { file: '/bin/true', args: [] },
  node: { file: process.execPath, args: ['-e', '0'] },
  out: {
    file: process.execPath,
    args: ['-e', `process.stdout.write(('x'.repeat(99) + '\\n').repeat(${OUT_LINES}))`],
    forward: true,
  },
};
const bytesOf = (kind) => (kind === 'out' ? OUT_LINES * 100 : 0);
const WAYS = ['main', 'worker', 'launcher'];
const rssMb = () => process.memoryUsage().rss / 2 ** 20;
const rssMbOf = (pid) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;

/**
 * Minor page faults of this process's main thread so far (/proc/<pid>/task/<pid>/stat, field 10):
 * after a fork every page of the parent is copy-on-write until the child has exec'd, so the main
 * thread's next write to each page it touches is a fault, wherever the fork was made from.
 */
const mainFaults = () => {
  const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[7]);
};

/**
 * A spawner on the far side of a message port (the worker) or an IPC channel (the launcher).
 * `died` is told how to fail every request in flight, so a spawner that dies fails the run.
 */
function remote(name, post, on, died) {
  const pending = new Map();
  let next = 0;
  died((why) => {
    for (const p of pending.values()) p.fail(new Error(`${name} ${why}`));
    pending.clear();
  });
  on((m) => {
    const p = pending.get(m.id);
    if (!p) return;
    if (m.error) {
      pending.delete(m.id);
      p.fail(new Error(`${name}: ${m.error}`));
    } else if (m.pid !== undefined) p.pid(m);
    else if (m.out !== undefined) p.bytes += m.out.length;
    else if (m.exit !== undefined) {
      pending.delete(m.id);
      p.exit({ code: m.exit, bytes: p.bytes });
    }
  });
  return (kind, onPid) =>
    new Promise((exit, fail) => {
      const id = next++;
      const t = performance.now();
      pending.set(id, { pid: (m) => onPid(performance.now() - t, m.ms), bytes: 0, exit, fail });
      post({ type: 'spawn', id, ...KINDS[kind], env: ENV });
    });
}

// (c) first, while this process is small: the launcher's own fork is the cheap one.
const rssAtStart = rssMb();
const launcher = fork(SPAWNER, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], env: ENV });
await new Promise((ok, bad) => {
  launcher.once('message', ok);
  launcher.once('error', bad);
  launcher.once('exit', (c) => bad(new Error(`launcher exited (${c})`)));
});
launcher.removeAllListeners('exit');
launcher.removeAllListeners('error');
const worker = new Worker(SPAWNER);
await new Promise((ok, bad) => {
  worker.once('online', ok);
  worker.once('error', bad);
});

const spawners = {
  main: (kind, onPid) =>
    new Promise((exit, fail) => {
      const t = performance.now();
      const c = spawn(KINDS[kind].file, KINDS[kind].args, {
        env: ENV,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const ms = performance.now() - t;
      let bytes = 0;
      c.stdout.on('data', (d) => (bytes += d.length));
      c.stderr.resume();
      c.once('error', fail);
      c.once('close', (code, signal) => exit({ code: code ?? signal, bytes }));
      if (c.pid !== undefined) onPid(ms, ms);
    }),
  worker: remote(
    'worker',
    (m) => worker.postMessage(m),
    (f) => worker.on('message', f),
    (fail) => {
      worker.on('error', (e) => fail(`failed: ${e.message}`));
      worker.on('exit', (c) => fail(`exited (${c})`));
    },
  ),
  launcher: remote(
    'launcher',
    (m) => launcher.send(m),
    (f) => launcher.on('message', f),
    (fail) => launcher.on('exit', (c, sig) => fail(`exited (${c ?? sig})`)),
  ),
};

// The relay's heap stand-in: objects V8 keeps (chats, messages) and touched buffers, all retained.
const kept = [];
for (let i = 0; i < 150_000; i++)
  kept.push({ id: i, chat: `chat-${i % 997}`, body: `message body ${i} `.repeat(3), at: [i, i * 2] });
// Filled, so every page is touched (a zeroed allocation may be pages the kernel never mapped).
while (rssMb() < RSS_MB) kept.push(Buffer.alloc(2 ** 20, 1));
const rssGrown = rssMb();

/** One window: N starts, P at a time, each issued from its own turn of the loop; the probe meanwhile. */
/** The probe's own CPU per ms of window on the main thread, from the round's idle window. */
let probeCpuPerMs = 0;

async function measure(way, kind) {
  const gaps = [];
  const toPid = [];
  const heldThere = [];
  const eld = monitorEventLoopDelay({ resolution: 1 });
  const lc0 = procCpuMs(launcher.pid);
  const f0 = mainFaults();
  const c0 = process.cpuUsage();
  const t0 = process.threadCpuUsage();
  const w0 = performance.now();
  let last = performance.now();
  const probe = setInterval(() => {
    const now = performance.now();
    gaps.push(now - last);
    last = now;
  }, 1);
  eld.enable();
  if (way !== 'idle') {
    let issued = 0;
    // One start per turn of the loop, as the relay's spawn turn (src/runner/spawn-turn.ts) orders
    // them: lanes whose children exited in the same turn would otherwise start back to back.
    let turn = Promise.resolve();
    const myTurn = () => {
      turn = turn.then(() => new Promise((r) => setImmediate(r)));
      return turn;
    };
    const lane = async () => {
      while (issued < N) {
        issued++;
        await myTurn();
        const { code, bytes } = await spawners[way](kind, (ms, there) => {
          toPid.push(ms);
          heldThere.push(there);
        });
        if (code !== 0) throw new Error(`${way} ${kind}: child exited ${code}`);
        if (bytes !== bytesOf(kind))
          throw new Error(`${way} ${kind}: ${bytes} bytes of output reached this thread`);
      }
    };
    await Promise.all(Array.from({ length: P }, lane));
  } else await new Promise((r) => setTimeout(r, IDLE_MS));
  eld.disable();
  clearInterval(probe);
  const wallMs = performance.now() - w0;
  const c = process.cpuUsage(c0);
  const faults = mainFaults() - f0;
  const t = process.threadCpuUsage(t0);
  const n = way === 'idle' ? 1 : N;
  return {
    way,
    kind,
    wallMs,
    gapMax: Math.max(...gaps),
    gapP99: p99(gaps),
    eldP99: eld.percentile(99) / 1e6,
    eldMax: eld.max / 1e6,
    gaps,
    toPid,
    heldThere,
    cpuProcMs: (c.user + c.system) / 1000 / n,
    cpuMainMs: (t.user + t.system) / 1000 / n,
    // Less the probe's ticks, which are most of it in a long window (node's starts take longer).
    cpuMainNetMs: ((t.user + t.system) / 1000 - probeCpuPerMs * wallMs) / n,
    cpuLauncherMs: (procCpuMs(launcher.pid) - lc0) / n,
    faultsMain: faults / n,
  };
}

const f1 = (x) => x.toFixed(1);
const f2 = (x) => x.toFixed(2);
const windows = [];
// A first untimed window per way and kind: code compiled, the worker and launcher warm.
for (const kind of Object.keys(KINDS)) for (const way of WAYS) await measure(way, kind);
for (let r = 0; r < ROUNDS; r++) {
  const idle = await measure('idle', 'none');
  probeCpuPerMs = idle.cpuMainMs / idle.wallMs;
  windows.push({ round: r, ...idle });
  process.stderr.write(
    `round ${r + 1} idle: gap max ${f1(idle.gapMax)} p99 ${f2(idle.gapP99)} ms, CPU ${f1(idle.cpuProcMs)} ms, main-thread faults ${idle.faultsMain} in ${IDLE_MS} ms\n`,
  );
  for (const kind of Object.keys(KINDS)) {
    const order = WAYS.map((_, i) => WAYS[(i + r) % WAYS.length]);
    for (const way of order) {
      const w = await measure(way, kind);
      windows.push({ round: r, ...w });
      process.stderr.write(
        `round ${r + 1} ${kind} ${way}: gap max ${f1(w.gapMax)} p99 ${f2(w.gapP99)} ms (eld p99 ${f2(w.eldP99)}), ` +
          `to pid median ${f2(median(w.toPid))} p99 ${f2(p99(w.toPid))} ms, held there median ${f2(median(w.heldThere))} ms, ` +
          `CPU/spawn process ${f2(w.cpuProcMs)} main ${f2(w.cpuMainMs)} (less the probe ${f2(w.cpuMainNetMs)}) launcher ${f2(w.cpuLauncherMs)} ms, main-thread faults/spawn ${Math.round(w.faultsMain)}, wall ${Math.round(w.wallMs)} ms\n`,
      );
    }
  }
}

const launcherRss = rssMbOf(launcher.pid);
launcher.send({ type: 'stop' });
await worker.terminate();
await new Promise((r) => (launcher.exitCode !== null ? r() : launcher.once('exit', r)));

process.stdout.write(
  `${JSON.stringify({
    n: N,
    p: P,
    rounds: ROUNDS,
    outBytes: bytesOf('out'),
    rssAtStart,
    rssGrown,
    rssEnd: rssMb(),
    launcherRss,
    keptBuffers: kept.filter((k) => Buffer.isBuffer(k)).length,
    windows,
  })}\n`,
);

// Where a spawn holds the event loop: Node's child_process.spawn forks the whole calling process
// and waits for the child's exec, on the calling thread. In a process grown to a relay-like RSS
// (bench/lib/spawn-hold-run.mjs, its own process, so its heap and start order are its own), N
// short children (`/bin/true`, `node -e 0`, a node printing 64 KiB whose output every way brings
// to the main thread: (b) and (c) pass it back in messages), P at a time, are started three ways in alternated
// rounds: (a) on the main thread, as the relay does; (b) from a worker thread; (c) from a small
// launcher process forked before the heap grew, over IPC. Per way: the main thread's longest and
// p99 gap between ticks of a 1 ms timer while the spawns happen, the time from the request to the
// pid, how long the spawn call held the thread that made it, CPU per spawn (main thread, less the
// probe's own as the idle window measured it; whole process; launcher), the main thread's minor
// page faults per spawn, and the ratios against (a). An idle window per round is the floor.
// BENCH_SPAWN_HOLD_N (40), _P (4), _ROUNDS (8), _RSS_MB (200) and _OUT_KB (64) change the sizes.
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, p99, range } from './lib/stats.mjs';

const RUN = join(dirname(fileURLToPath(import.meta.url)), 'lib/spawn-hold-run.mjs');
const LABEL = { main: '(a) main thread', worker: '(b) worker thread', launcher: '(c) launcher process' };

function runMeasurer() {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [RUN], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d) => (out += d));
    // Two minutes is the most it takes on a loaded 2-core machine; past that it is stuck.
    const stuck = setTimeout(() => child.kill('SIGKILL'), 300_000);
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      clearTimeout(stuck);
      if (code !== 0) reject(new Error(`spawn-hold-run exited ${code ?? signal}`));
      else resolve(JSON.parse(out.trim().split('\n').pop()));
    });
  });
}

const f = (x, d = 2) => x.toFixed(d);

export default async function spawnHold() {
  const loadBefore = loadavg()[0];
  const r = await runMeasurer();
  const loadAfter = loadavg()[0];
  const rows = [
    {
      metric: `setup: ${r.n} starts per window, ${r.p} at a time, ${r.rounds} rounds; RSS at start / grown / end; launcher RSS`,
      value: `${f(r.rssAtStart, 0)} / ${f(r.rssGrown, 0)} / ${f(r.rssEnd, 0)}; ${f(r.launcherRss, 0)}`,
      unit: 'MiB',
    },
    { metric: 'load average (1 min) before / after', value: `${f(loadBefore)} / ${f(loadAfter)}`, unit: '' },
  ];
  const of = (way, kind) => r.windows.filter((w) => w.way === way && w.kind === kind);
  const all = (ws, key) => ws.flatMap((w) => w[key]);
  const idle = of('idle', 'none');
  rows.push({
    metric: 'idle (the probe alone): main-thread CPU per 100 ms of window (median of rounds)',
    value: median(idle.map((w) => (100 * w.cpuMainMs) / w.wallMs)),
    unit: 'ms',
  });
  rows.push({
    metric: 'idle (the probe alone): loop gap max / p99 (per-round max range)',
    value: `${f(Math.max(...all(idle, 'gaps')))} / ${f(p99(all(idle, 'gaps')))} (${range(idle.map((w) => w.gapMax))})`,
    unit: 'ms',
  });
  const names = {
    true: '/bin/true',
    node: 'node -e 0',
    out: `node printing ${Math.round(r.outBytes / 1024)} KiB`,
  };
  for (const kind of ['true', 'node', 'out']) {
    const name = names[kind];
    const sum = {};
    for (const way of ['main', 'worker', 'launcher']) {
      const ws = of(way, kind);
      const gaps = all(ws, 'gaps');
      const s = {
        gapMax: Math.max(...gaps),
        gapP99: p99(gaps),
        cpuMain: median(ws.map((w) => w.cpuMainNetMs)),
      };
      sum[way] = s;
      const pre = `${name}: ${LABEL[way]}`;
      rows.push(
        {
          metric: `${pre}: loop gap max / p99 (per-round max range)`,
          value: `${f(s.gapMax)} / ${f(s.gapP99)} (${range(ws.map((w) => w.gapMax))})`,
          unit: 'ms',
        },
        {
          metric: `${pre}: request to pid, median / p99`,
          value: `${f(median(all(ws, 'toPid')))} / ${f(p99(all(ws, 'toPid')))}`,
          unit: 'ms',
        },
        {
          metric: `${pre}: the spawn call held its thread, median / p99 / max`,
          value: `${f(median(all(ws, 'heldThere')))} / ${f(p99(all(ws, 'heldThere')))} / ${f(Math.max(...all(ws, 'heldThere')))}`,
          unit: 'ms',
        },
        {
          metric: `${pre}: minor page faults of the main thread per spawn (median of rounds)`,
          value: median(ws.map((w) => w.faultsMain)),
          unit: '',
        },
        {
          metric: `${pre}: CPU per spawn, main thread less the probe / main thread / whole process / launcher (median of rounds)`,
          value: `${f(s.cpuMain)} / ${f(median(ws.map((w) => w.cpuMainMs)))} / ${f(median(ws.map((w) => w.cpuProcMs)))} / ${f(median(ws.map((w) => w.cpuLauncherMs)))}`,
          unit: 'ms',
        },
      );
    }
    for (const way of ['worker', 'launcher'])
      rows.push({
        metric: `${name}: ${LABEL[way]} / (a): loop gap max, p99, main-thread CPU per spawn`,
        value: `${f(sum[way].gapMax / sum.main.gapMax)}, ${f(sum[way].gapP99 / sum.main.gapP99)}, ${f(sum[way].cpuMain / sum.main.cpuMain)}`,
        unit: 'x',
      });
  }
  return rows;
}

// Start-up: the built `agentwire relay` (Twilio on with its webhook on 127.0.0.1, WhatsApp off, the
// web console on at an ephemeral port, a fresh temp AGENTWIRE_HOME each time) from spawn until the
// webhook answers a request, the CPU it used to get there, and its resident memory after a second of
// idling; and `agentwire status` on a state folder it has run in before (so with its compile cache).
// Two baselines, measured alternately in the same process: `node -e ''` (spawn to exit; the RSS of an
// otherwise empty node process after the same idle second), and the same program loaded module by
// module as before the build bundled it (bench/lib/unbundled-bin.mjs; scripts/bundle-cli.mjs).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAIN, relayHome, UNBUNDLED } from './lib/relay-proc.mjs';
import { childrenCpuMs, median, sleep } from './lib/stats.mjs';

const RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 5);
const IDLE_MS = 1000;
const WAYS = { bundle: MAIN, modules: UNBUNDLED };

const rssKbOf = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);

/** Spawns node with `args` and resolves at its exit with its wall time and CPU (it is reaped here). */
function timedNode(args, env = process.env) {
  return new Promise((resolve, reject) => {
    const cpu0 = childrenCpuMs();
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { stdio: 'ignore', env });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) reject(new Error(`node ${args.join(' ')} exited ${code}`));
      else resolve({ ms: performance.now() - t0, cpuMs: childrenCpuMs() - cpu0 });
    });
  });
}

async function nodeIdleRss() {
  // `node -e ''` exits at once; kept alive by a timer, it is the same empty process, measurable.
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
  const gone = new Promise((r) => child.once('exit', r));
  try {
    await sleep(IDLE_MS);
    return rssKbOf(child.pid);
  } finally {
    child.kill('SIGKILL');
    await gone;
  }
}

async function relayOnce(main) {
  const relay = await relayHome({ console: true, main });
  try {
    const ms = await relay.start();
    const cpuMs = relay.cpuMs();
    await sleep(IDLE_MS);
    return { ms, cpuMs, rssKb: relay.rssKb() };
  } finally {
    await relay.stop();
  }
}

const med = (xs, key) => median(xs.map((x) => x[key]));

export default async function () {
  const home = mkdtempSync(join(tmpdir(), 'aw-bench-startup-'));
  const statusEnv = { PATH: process.env.PATH, HOME: home, AGENTWIRE_HOME: home };
  try {
    await timedNode(['-e', '']); // warm the file cache for all
    for (const main of Object.values(WAYS)) {
      await relayOnce(main);
      await timedNode([main, 'status'], statusEnv); // makes the state folder, then its compile cache
      await timedNode([main, 'status'], statusEnv);
    }
    const relay = { bundle: [], modules: [] };
    const status = { bundle: [], modules: [] };
    const floor = [];
    const floorRss = [];
    for (let i = 0; i < RUNS; i++) {
      // Alternated, the first way swapped each round, so a drift in the machine's load falls on both.
      const order = i % 2 === 0 ? ['bundle', 'modules'] : ['modules', 'bundle'];
      for (const way of order) relay[way].push(await relayOnce(WAYS[way]));
      for (const way of order) status[way].push(await timedNode([WAYS[way], 'status'], statusEnv));
      floor.push(await timedNode(['-e', '']));
      floorRss.push(await nodeIdleRss());
    }
    const fMs = med(floor, 'ms');
    const fRss = median(floorRss) / 1024;
    const rows = [
      { metric: `floor: node -e '' spawn to exit (median of ${RUNS})`, value: fMs, unit: 'ms' },
      { metric: `floor: RSS of an empty node process after ${IDLE_MS} ms`, value: fRss, unit: 'MiB' },
    ];
    for (const way of ['bundle', 'modules']) {
      const what = way === 'bundle' ? 'relay' : 'relay loaded module by module';
      rows.push(
        {
          metric: `${what}: spawn until the Twilio webhook answers (median)`,
          value: med(relay[way], 'ms'),
          unit: 'ms',
        },
        { metric: `${what}: CPU until then (median)`, value: med(relay[way], 'cpuMs'), unit: 'ms' },
        {
          metric: `${what}: RSS after start and ${IDLE_MS} ms idle (median)`,
          value: med(relay[way], 'rssKb') / 1024,
          unit: 'MiB',
        },
        {
          metric: `${way === 'bundle' ? '' : 'module by module: '}agentwire status: wall / CPU (median)`,
          value: `${med(status[way], 'ms').toFixed(0)} / ${med(status[way], 'cpuMs').toFixed(0)}`,
          unit: 'ms',
        },
      );
    }
    rows.push(
      { metric: 'start-up ratio relay / node floor', value: med(relay.bundle, 'ms') / fMs, unit: '' },
      {
        metric: 'idle RSS ratio relay / node floor',
        value: med(relay.bundle, 'rssKb') / 1024 / fRss,
        unit: '',
      },
    );
    // Each figure from the bundle over the same from the modules.
    for (const [what, runs, key] of [
      ['relay start time', relay, 'ms'],
      ['relay start CPU', relay, 'cpuMs'],
      ['relay idle RSS', relay, 'rssKb'],
      ['status CPU', status, 'cpuMs'],
    ])
      rows.push({
        metric: `bundle / module by module: ${what}`,
        value: med(runs.bundle, key) / med(runs.modules, key),
        unit: '',
      });
    return rows;
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

// A/B for the launcher prototype (docs/launcher-plan.md): the relay's own spawnProcess (dist/),
// started here (execa, what main does) or through a launcher forked before the heap grew, in one
// process grown to a relay-like RSS. Per window: 40 starts, 4 at a time, one per turn of the loop
// (as src/runner/spawn-turn.ts orders them), of `/bin/true` or `node -e 0`; a 1 ms timer on the
// main thread records the gaps between its ticks. Ways alternate within a round, their order
// rotating, so the machine's other load falls on each alike. Needs `npm run build` first.
// `node bench/launcher-ab.mjs` (BENCH_LAUNCHER_ROUNDS, BENCH_LAUNCHER_RSS_MB to change the defaults).
import { startLauncher } from '../dist/runner/launcher/client.js';
import { spawnProcess } from '../dist/runner/spawn.js';
import { median, p99 } from './lib/stats.mjs';

const N = 40;
const P = 4;
const ROUNDS = Number(process.env.BENCH_LAUNCHER_ROUNDS ?? 6);
const RSS_MB = Number(process.env.BENCH_LAUNCHER_RSS_MB ?? 200);
const ENV = { PATH: '/usr/bin:/bin' };
const KINDS = { true: ['/bin/true', []], node: [process.execPath, ['-e', '0']] };
const rssMb = () => process.memoryUsage().rss / 2 ** 20;

// Forked first, while this process is small: its own fork is the cheap one.
const launcher = startLauncher();
const warm = await spawnProcess({ file: '/bin/true', args: [], env: ENV, launcher });
if (warm.type !== 'exited') throw new Error(`launcher: ${JSON.stringify(warm)}`);

// The relay's heap stand-in: kept objects and touched buffers.
const kept = [];
for (let i = 0; i < 150_000; i++)
  kept.push({ id: i, chat: `chat-${i % 997}`, body: `message ${i} `.repeat(3) });
while (rssMb() < RSS_MB) kept.push(Buffer.alloc(2 ** 20, 1));

async function window(way, kind) {
  const gaps = [];
  const walls = [];
  let last = performance.now();
  const probe = setInterval(() => {
    const now = performance.now();
    gaps.push(now - last);
    last = now;
  }, 1);
  let issued = 0;
  let turn = Promise.resolve();
  const myTurn = () => {
    turn = turn.then(() => new Promise((r) => setImmediate(r)));
    return turn;
  };
  const [file, args] = KINDS[kind];
  const lane = async () => {
    while (issued < N) {
      issued++;
      await myTurn();
      const t = performance.now();
      const r = await spawnProcess({ file, args, env: ENV, ...(way === 'launcher' ? { launcher } : {}) });
      walls.push(performance.now() - t);
      if (r.type !== 'exited' || r.exitCode !== 0) throw new Error(`${way} ${kind}: ${JSON.stringify(r)}`);
    }
  };
  const c0 = process.cpuUsage();
  await Promise.all(Array.from({ length: P }, lane));
  clearInterval(probe);
  const c = process.cpuUsage(c0);
  return {
    gapP99: p99(gaps),
    gapMax: Math.max(...gaps),
    wall: median(walls),
    cpu: (c.user + c.system) / 1000 / N,
  };
}

const ways = ['here', 'launcher'];
const rows = [];
for (let round = 0; round < ROUNDS; round++) {
  for (const kind of Object.keys(KINDS)) {
    const order = round % 2 ? [...ways].reverse() : ways;
    for (const way of order) {
      const w = await window(way, kind);
      rows.push({ way, kind, ...w });
      console.error(
        `round ${round} ${kind.padEnd(4)} ${way.padEnd(8)} gap p99 ${w.gapP99.toFixed(1)} max ${w.gapMax.toFixed(1)} ms, run median ${w.wall.toFixed(1)} ms, this process CPU/start ${w.cpu.toFixed(2)} ms (rss ${rssMb().toFixed(0)} MiB)`,
      );
    }
  }
}
for (const kind of Object.keys(KINDS))
  for (const way of ways) {
    const rs = rows.filter((r) => r.way === way && r.kind === kind);
    const m = (k) => median(rs.map((r) => r[k])).toFixed(2);
    console.log(
      `${kind.padEnd(4)} ${way.padEnd(8)} median over ${rs.length} windows: gap p99 ${m('gapP99')} ms, gap max ${m('gapMax')} ms, run ${m('wall')} ms, CPU/start ${m('cpu')} ms`,
    );
  }
await launcher.stop();
console.log(
  `load after: ${(await import('node:os'))
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);

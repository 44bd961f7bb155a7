// `node bench/lib/loop-probe-report.mjs burst.txt`: for the last relay of a burst bench run with
// BENCH_ACK_LOG=1 and bench/lib/loop-probe.mjs preloaded, the slowest acks beside the relay's loop
// stalls and spawns that overlapped them, and the stalls and spawns within the webhooks' window.
// Reads the newest file in <tmp>/aw-loop-probe/ (the relay that handled the most ticks).
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const raws = readFileSync(process.argv[2], 'utf8')
  .split('\n')
  .filter((l) => l.startsWith('burst-raw '))
  .map((l) => JSON.parse(l.slice(10)));
const r = raws.at(-1);
const dir = join(tmpdir(), 'aw-loop-probe');
const probes = readdirSync(dir).map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')));
const p = probes.sort((a, b) => b.stalls.length + b.spawns.length - (a.stalls.length + a.spawns.length))[0];
const acks = r.ackLog ?? [];
if (!acks.length) throw new Error('no ack log: run the bench with BENCH_ACK_LOG=1');
const t0 = Math.min(...acks.map((a) => a[0]));
const t1 = Math.max(...acks.map((a) => a[0] + a[1]));
const stall = ([s, d, c, v, nv]) =>
  `+${s - t0}:${d} ms (relay CPU ${c} ms, switches ${v} voluntary / ${nv} involuntary)`;
const spawn = ([s, d, f]) => `${f} +${s - t0}: ${d} ms`;
console.log(
  `${r.kind} ${r.label}: ack p50 ${r.ackP50.toFixed(1)} / p99 ${r.ackP99.toFixed(1)} ms, load ${r.load}`,
);
console.log(
  `loop delay p50 ${p.p50.toFixed(1)} / p99 ${p.p99.toFixed(1)} / max ${p.max.toFixed(0)} ms; webhooks from +0 to +${t1 - t0} ms`,
);
for (const [at, ms] of acks
  .filter((a) => a[1] > 40)
  .sort((a, b) => b[1] - a[1])
  .slice(0, 5)) {
  const st = p.stalls.filter(([s, d]) => s < at + ms && s + d > at).map(stall);
  const sp = p.spawns.filter(([s, d]) => s - d < at + ms && s > at).map(spawn);
  // The relay's own time for it: the request that reached the relay within the ack's window
  // (the clocks are one machine's; the bench's send time is taken just before the post).
  const inRelay = (p.requests ?? [])
    .filter(([s]) => s >= at - 1 && s <= at + ms)
    .map(([s, d]) => `+${s - at} → ${d} ms`);
  console.log(
    `  ack sent +${at - t0}, ${ms} ms: in the relay (reached after, took) ${inRelay.join(', ') || '?'}; stalls ${st.join('; ') || 'none'}; spawns ${sp.join('; ') || 'none'}`,
  );
}
console.log(
  `stalls in the window: ${
    p.stalls
      .filter(([s]) => s >= t0 && s <= t1)
      .map(stall)
      .join('; ') || 'none'
  }`,
);
console.log(
  `spawns in the window: ${
    p.spawns
      .filter(([s]) => s >= t0 && s <= t1)
      .map(spawn)
      .join('; ') || 'none'
  }`,
);
console.log(`every spawn (ms the loop was held): ${p.spawns.map((s) => s[1]).join(', ')}`);

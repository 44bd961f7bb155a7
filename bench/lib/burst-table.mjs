#!/usr/bin/env node
// Turns the output of the burst bench (`node bench/run.mjs burst 2>&1 | tee out.txt`) into the
// Markdown rows of docs/performance.md's burst table: `node bench/lib/burst-table.mjs out.txt`.
// Reads the `burst-raw` lines (one per relay measured); the ack figures come from them or, in
// output written before they carried them, from the table's ack rows.
import { readFileSync } from 'node:fs';

const text = readFileSync(process.argv[2] ?? 0, 'utf8');
const raws = text
  .split('\n')
  .filter((l) => l.startsWith('burst-raw '))
  .map((l) => JSON.parse(l.slice('burst-raw '.length)));

/** The ack median / p99 printed in the table for `kind label`, when the raw line lacks them. */
function ackFromTable(r) {
  const re = new RegExp(
    `${r.kind} ${r.label}: ack median / p99 \\(\\d+ webhooks\\)\\s+([\\d.]+) / ([\\d.]+) ms`,
  );
  const m = re.exec(text);
  return m ? [Number(m[1]), Number(m[2])] : [Number.NaN, Number.NaN];
}

const perTurn = (r) => r.agentCpuMs / Math.max(1, r.runs);
const one = (x) => x.toFixed(1);
const out = [
  '| CLI | mode | burst | queue | wall | turns | process starts | agent CPU / turn (× one warm chat) | ack median / p99 | peak RSS | load (1 min) |',
  '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
];
let base;
for (const r of raws) {
  const single = r.label.startsWith('one warm chat');
  if (single) base = r;
  const [p50, p99] = r.ackP99 === undefined ? ackFromTable(r) : [r.ackP50, r.ackP99];
  const [, size] = /(\d+×\d+)$/.exec(r.label) ?? [];
  const ratio =
    !single && base && base.kind === r.kind ? ` (${(perTurn(r) / perTurn(base)).toFixed(1)}×)` : '';
  const load = r.load
    .split(' → ')
    .map((l) => l.split(' ')[0])
    .join('–');
  out.push(
    `| ${r.kind} | ${r.mode} | ${single ? r.label.replace('one warm chat', 'one chat') : size} | ${single ? 'one at a time' : r.whileBusy} | ${one(r.wallMs / 1000)} s | ${r.runs} | ${r.starts}${r.startsSeen !== undefined && r.startsSeen !== r.starts ? ` (${r.startsSeen} seen)` : ''} | ${perTurn(r).toFixed(0)} ms${ratio} | ${one(p50)} / ${one(p99)} ms | ${r.peakRssMiB.toFixed(0)} MiB | ${load} |`,
  );
}
process.stdout.write(`${out.join('\n')}\n`);

#!/usr/bin/env node
// Turns the output of the burst bench (`node bench/run.mjs burst 2>&1 | tee out.txt`) into the
// Markdown rows of docs/performance.md's burst table: `node bench/lib/burst-table.mjs out.txt`.
// Reads the `burst-raw` lines (one per relay measured); the ack figures come from them or, in
// output written before they carried them, from the table's ack rows.
//
// Two baselines per CLI, because they answer different questions (docs/performance.md):
// - one chat, its messages one at a time (each sent once the last was answered): one process start
//   spread over BASE_TURNS turns, the cheapest a warm turn gets;
// - one chat of the burst's own shape (M messages GAP_MS apart, the same `whileBusy`): the burst
//   with one sender. Against it a burst row shows what the other senders cost (contention, starts
//   thrashing), not what collect's merging of messages into fewer turns does to a per-turn figure.
// The pure part (which baseline a row meets, the ratios) is exported for burst-run.mjs and the
// table test (test/bench/burst-table.test.ts).
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

/** The one-at-a-time baseline's label starts so (burst-run.mjs). */
export const ONE_AT_A_TIME = 'one warm chat';

/** Senders and messages per sender: from the raw line, or from a label ending `S×M`. */
export function shapeOf(r) {
  if (r.senders !== undefined && r.per !== undefined) return { senders: r.senders, per: r.per };
  if (r.label.startsWith(ONE_AT_A_TIME)) {
    const n = /× (\d+)$/.exec(r.label);
    return { senders: 1, per: n ? Number(n[1]) : r.runs };
  }
  const m = /(\d+)×(\d+)$/.exec(r.label);
  return m ? { senders: Number(m[1]), per: Number(m[2]) } : { senders: 1, per: r.runs };
}

export const isOneAtATime = (r) => r.label.startsWith(ONE_AT_A_TIME);
/** The burst with one sender: warm, one sender, its messages at the burst's gap. */
export const isSameShape = (r) => !isOneAtATime(r) && r.mode === 'warm' && shapeOf(r).senders === 1;

export const perTurn = (r) => r.agentCpuMs / Math.max(1, r.runs);
export const perMessage = (r) => r.agentCpuMs / Math.max(1, r.messages ?? r.runs);
export const turnsPerChat = (r) => r.runs / shapeOf(r).senders;

/**
 * The baselines a row is compared with, among `raws` (every relay of a run, in any order): the
 * one-at-a-time chat of the same CLI, and the same-shape chat of the same CLI, messages per sender
 * and `whileBusy`. A baseline is not compared with itself; the same-shape chat is compared with the
 * one-at-a-time one (that ratio is collect's merging alone).
 */
export function baselinesFor(r, raws) {
  const same = (b) => b.kind === r.kind && b !== r;
  const one = isOneAtATime(r) ? undefined : raws.find((b) => same(b) && isOneAtATime(b));
  const shape =
    isOneAtATime(r) || isSameShape(r)
      ? undefined
      : raws.find(
          (b) =>
            same(b) && isSameShape(b) && b.whileBusy === r.whileBusy && shapeOf(b).per === shapeOf(r).per,
        );
  return { one, shape };
}

/** A row's figures and its ratios to each baseline (undefined where there is none). */
export function compare(r, raws) {
  const { one, shape } = baselinesFor(r, raws);
  return {
    perTurn: perTurn(r),
    perMessage: perMessage(r),
    turnsPerChat: turnsPerChat(r),
    xOne: one ? perTurn(r) / perTurn(one) : undefined,
    xShape: shape ? perTurn(r) / perTurn(shape) : undefined,
    xShapePerMessage: shape ? perMessage(r) / perMessage(shape) : undefined,
  };
}

/** The Markdown table of a bench output's text. */
export function tableOf(text) {
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

  const one = (x) => x.toFixed(1);
  const times = (x) => (x === undefined ? '—' : `${x.toFixed(1)}×`);
  const out = [
    '| CLI | mode | burst | queue | wall | turns (per chat) | process starts | agent CPU / turn | × one chat, one at a time | × one chat, same shape | agent CPU / message (× same shape) | ack median / p99 | peak RSS | load (1 min) |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const r of raws) {
    const c = compare(r, raws);
    const { senders, per } = shapeOf(r);
    const [p50, p99] = r.ackP99 === undefined ? ackFromTable(r) : [r.ackP50, r.ackP99];
    const burst = senders === 1 ? `one chat × ${per}` : `${senders}×${per}`;
    const queue = isOneAtATime(r) ? 'one at a time' : r.whileBusy;
    const load = r.load
      .split(' → ')
      .map((l) => l.split(' ')[0])
      .join('–');
    const starts = `${r.starts}${r.startsSeen !== undefined && r.startsSeen !== r.starts ? ` (${r.startsSeen} seen)` : ''}`;
    const perMsg = `${c.perMessage.toFixed(0)} ms${c.xShapePerMessage === undefined ? '' : ` (${times(c.xShapePerMessage)})`}`;
    out.push(
      `| ${r.kind} | ${r.mode} | ${burst} | ${queue} | ${one(r.wallMs / 1000)} s | ${r.runs} (${c.turnsPerChat.toFixed(1)}) | ${starts} | ${c.perTurn.toFixed(0)} ms | ${times(c.xOne)} | ${times(c.xShape)} | ${perMsg} | ${one(p50)} / ${one(p99)} ms | ${r.peakRssMiB.toFixed(0)} MiB | ${load} |`,
    );
  }
  return `${out.join('\n')}\n`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  process.stdout.write(tableOf(readFileSync(process.argv[2] ?? 0, 'utf8')));

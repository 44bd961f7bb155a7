// Output parsing: each agent's parser over a ~50 MB stream shaped like that CLI's real output (the
// stdout lines of its successful captures in fixtures/agents/<kind>/, repeated in order), fed in
// 64 KiB chunks (a Linux pipe's size) through the same path a relay run takes: CappedLines with the
// spec's keepLine and the default 10 MB cap, then toAgentResult → spec.parse on what was kept. A
// second pass adds the per-line messageStream reducer (what `agentwire agent` uses for progress).
// The baseline is a bare loop over the same chunks: split at newlines, decode, JSON.parse each line.
// Each pass runs REPS times, alternating with the baseline; medians are reported, with peak growth
// of RSS and V8 heap over the pass (sampled every MiB; the input buffer is allocated before).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { AGENT_SPECS, CLI_KINDS } from '../dist/agents/registry.js';
import { CappedLines } from '../dist/runner/lines.js';
import { DEFAULT_MAX_STDOUT_BYTES, toAgentResult } from '../dist/runner/run-command-reply.js';
import { median } from './lib/stats.mjs';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '../fixtures/agents');
const TARGET_BYTES = Number(process.env.BENCH_PARSE_MB ?? 50) * 1024 * 1024;
const REPS = Number(process.env.BENCH_PARSE_REPS ?? 3);
const CHUNK = 64 * 1024;
/** Captures of a run that answered, in the output mode the spec asks for. */
const SHAPES = ['new.json', 'resume.json', 'tool.json', 'media.json', 'reasoning.json'];

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc');

function streamFor(kind) {
  const files = readdirSync(join(FIXTURES, kind)).filter((f) => SHAPES.includes(f));
  const lines = files.flatMap((f) => {
    const cap = JSON.parse(readFileSync(join(FIXTURES, kind, f), 'utf8'));
    return cap.stdout.split('\n').filter((l) => l.trim() !== '');
  });
  const block = Buffer.from(`${lines.join('\n')}\n`);
  const copies = Math.ceil(TARGET_BYTES / block.length);
  return { buf: Buffer.concat(Array.from({ length: copies }, () => block)), lines: lines.length * copies };
}

/** Runs `feed(chunk)` over the buffer and `end()`; returns ms and peak RSS / heap growth (MiB). */
function measure(buf, feed, end) {
  gc();
  gc();
  const m0 = process.memoryUsage();
  let rss = m0.rss;
  let heap = m0.heapUsed;
  const t0 = performance.now();
  for (let off = 0, n = 0; off < buf.length; off += CHUNK, n++) {
    feed(buf.subarray(off, Math.min(off + CHUNK, buf.length)));
    if (n % 16 === 0) {
      const m = process.memoryUsage();
      if (m.rss > rss) rss = m.rss;
      if (m.heapUsed > heap) heap = m.heapUsed;
    }
  }
  const result = end();
  const ms = performance.now() - t0;
  const m = process.memoryUsage();
  return {
    ms,
    rssMb: (Math.max(rss, m.rss) - m0.rss) / 1048576,
    heapMb: (Math.max(heap, m.heapUsed) - m0.heapUsed) / 1048576,
    result,
  };
}

function bare(buf) {
  let parsed = 0;
  let partial = [];
  return measure(
    buf,
    (chunk) => {
      let start = 0;
      for (;;) {
        const nl = chunk.indexOf(0x0a, start);
        if (nl === -1) break;
        let line;
        if (partial.length === 0) line = chunk.toString('utf8', start, nl);
        else {
          partial.push(chunk.subarray(start, nl));
          line = Buffer.concat(partial).toString('utf8');
          partial = [];
        }
        JSON.parse(line);
        parsed++;
        start = nl + 1;
      }
      if (start < chunk.length) partial.push(chunk.subarray(start));
    },
    () => parsed,
  );
}

/** What spawnProcess + runCommandReply do with a run's stdout, minus the process. */
function relayPath(kind, buf, progress) {
  const spec = AGENT_SPECS[kind];
  const next = spec.messageStream();
  let messages = 0;
  const onLine = progress
    ? (line) => {
        try {
          for (const ev of next(line)) if (ev.type === 'message') messages++;
        } catch {
          // as runCommandReply: a reducer that throws loses that line only
        }
      }
    : () => {};
  const out = new CappedLines({
    maxBytes: DEFAULT_MAX_STDOUT_BYTES,
    onLine,
    keep: spec.keepLine ? (l) => spec.keepLine(l) : undefined,
  });
  return measure(
    buf,
    (chunk) => out.push(chunk),
    () => {
      out.end();
      const r = toAgentResult(
        spec,
        { argv: [spec.program] },
        {
          type: 'exited',
          stdoutLines: out.lines,
          stdout: out.text(),
          stderr: '',
          stdoutTruncated: out.truncated,
          stderrTruncated: false,
          exitCode: 0,
          signal: null,
          durationMs: 0,
        },
      );
      if (r.type !== 'ok') throw new Error(`${kind} parser: ${r.type} ${r.message ?? ''}`);
      return { text: r.text, messages };
    },
  );
}

export default async function () {
  const rows = [];
  // The CLIs with a one-shot mode and captured output (an ACP agent has neither).
  for (const kind of CLI_KINDS) {
    const { buf, lines } = streamFor(kind);
    const mb = buf.length / 1048576;
    const runs = { bare: [], relay: [], progress: [] };
    for (let rep = 0; rep < REPS; rep++) {
      runs.bare.push(bare(buf));
      runs.relay.push(relayPath(kind, buf, false));
      runs.progress.push(relayPath(kind, buf, true));
    }
    if (runs.bare[0].result !== lines)
      throw new Error(`baseline parsed ${runs.bare[0].result} of ${lines} lines`);
    const mbps = (xs) => mb / (median(xs.map((x) => x.ms)) / 1000);
    const peak = (xs, k) => Math.max(...xs.map((x) => x[k]));
    const base = mbps(runs.bare);
    rows.push({
      metric: `${kind}: bare JSON.parse per line, ${mb.toFixed(0)} MB / ${lines} lines (peak RSS / heap growth ${peak(runs.bare, 'rssMb').toFixed(0)} / ${peak(runs.bare, 'heapMb').toFixed(0)} MB)`,
      value: base,
      unit: 'MB/s',
    });
    for (const [name, label] of [
      ['relay', 'relay path: cap, keepLine, parse'],
      ['progress', 'same + progress reducer per line'],
    ]) {
      const ratio = mbps(runs[name]) / base;
      rows.push({
        metric: `${kind}: ${label} / bare (${mbps(runs[name]).toFixed(0)} MB/s; peak RSS / heap growth ${peak(runs[name], 'rssMb').toFixed(0)} / ${peak(runs[name], 'heapMb').toFixed(0)} MB)`,
        value: ratio,
        unit: '',
        target: '>= 0.8',
        pass: ratio >= 0.8,
      });
    }
  }
  return rows;
}

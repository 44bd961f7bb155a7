// Relay overhead over the full path: N signed Twilio webhooks over M chats into the built
// `agentwire relay` (its own process: express on 127.0.0.1, SQLite inbox, queue, the fake claude as
// a real child process, outbox, the twilio SDK out to a fake REST server on 127.0.0.1), against N
// bare spawns of the same fake CLI at the same concurrency, in the same bench process. Rounds
// alternate so machine noise hits both alike; the median round is reported.
// Then, one message at a time, a relay message and a bare spawn alternate: the paired difference
// is what the relay adds to a message beyond the CLI's own run (median and p99).

import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { bareRuns } from './lib/bare-spawn.mjs';
import { startFakeTwilio } from './lib/fake-twilio.mjs';
import { relayHome } from './lib/relay-proc.mjs';
import { pairedLatency, postRound } from './lib/rounds.mjs';
import { childrenCpuMs, median, p99, range } from './lib/stats.mjs';
import { closeAgent } from './lib/webhook.mjs';

const N = Number(process.env.BENCH_N ?? 120);
const M = Number(process.env.BENCH_M ?? 12);
const C = 4;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SEQUENTIAL = Number(process.env.BENCH_SEQ ?? 150);
async function relayRound(relay, fake, round) {
  const cpu0 = relay.cpuMs();
  const kids0 = relay.childCpuMs();
  const own0 = process.cpuUsage();
  const ms = await postRound(relay.url, fake, { n: N, chats: M, tag: `round${round}` });
  const own = process.cpuUsage(own0);
  return {
    ms,
    cpu: relay.cpuMs() - cpu0,
    kids: relay.childCpuMs() - kids0,
    edges: (own.user + own.system) / 1000,
  };
}

/** The relay's own measure of each run (spawn to exit, ms), newest last, from its run history. */
function runDurations(dir, k) {
  const db = new DatabaseSync(join(dir, 'agentwire.db'), { readOnly: true });
  try {
    const rows = db.prepare('SELECT duration_ms FROM runs ORDER BY id DESC LIMIT ?').all(k);
    return rows.map((r) => Number(r.duration_ms)).reverse();
  } finally {
    db.close();
  }
}

export default async function () {
  const fake = await startFakeTwilio();
  const relay = await relayHome({
    apiBaseUrl: fake.url,
    // One run per message, as the bare baseline does (the default `collect` would merge messages
    // that arrive during a run into one prompt and make the relay look faster than it is).
    queue: { maxConcurrentRuns: C, whileBusy: 'followup', maxPendingPerChat: 10_000 },
  });
  try {
    await relay.start();
    await bareRuns(C * 2, C); // warm the file cache
    await relayRound(relay, fake, 'warm');
    const ratios = [];
    const base = [];
    const full = [];
    const relayCpu = [];
    const edgeCpu = [];
    const cliCpu = [];
    const relayCliCpu = [];
    for (let round = 0; round < ROUNDS; round++) {
      const c0 = childrenCpuMs();
      const b = await bareRuns(N, C);
      cliCpu.push((childrenCpuMs() - c0) / N);
      const r = await relayRound(relay, fake, round);
      base.push(b);
      full.push(r.ms);
      relayCpu.push(r.cpu / N);
      relayCliCpu.push(r.kids / N);
      edgeCpu.push(r.edges / N);
      ratios.push(r.ms / b);
    }
    const seq = await pairedLatency(relay.url, fake, SEQUENTIAL, 'relay');
    const runMs = runDurations(relay.dir, SEQUENTIAL);
    const outside = seq.relayLat.map((l, i) => l - (runMs[i] ?? Number.NaN));
    const ratio = median(ratios);
    const addMed = median(seq.added);
    return [
      {
        metric: `full path: ${N} messages over ${M} chats, ${C} at once: no relay (median)`,
        value: median(base),
        unit: 'ms',
      },
      {
        metric: `full path: same, webhook in to REST out through the relay (median)`,
        value: median(full),
        unit: 'ms',
      },
      {
        metric: `full path ratio relay / no relay (median of ${ROUNDS} paired rounds; range ${range(ratios)})`,
        value: ratio,
        unit: '',
        target: '<= 1.10',
        pass: ratio <= 1.1,
      },
      { metric: 'CPU per fake CLI run, bare (median round)', value: median(cliCpu), unit: 'ms' },
      {
        metric: 'CPU per fake CLI run, started by the relay (median round)',
        value: median(relayCliCpu),
        unit: 'ms',
      },
      { metric: 'CPU of the relay process per message (median round)', value: median(relayCpu), unit: 'ms' },
      {
        // Same cores: on a small machine the far edges' work (Twilio's side) weighs on the relay rounds.
        metric: 'CPU of this process per message in relay rounds (signing, posting, fake REST)',
        value: median(edgeCpu),
        unit: 'ms',
      },
      {
        metric: `one at a time (${SEQUENTIAL} pairs): bare CLI run (median)`,
        value: median(seq.bare),
        unit: 'ms',
      },
      {
        metric: 'one at a time: webhook sent to REST create received (median)',
        value: median(seq.relayLat),
        unit: 'ms',
      },
      {
        metric: 'added latency per message, median of paired differences',
        value: addMed,
        unit: 'ms',
        target: '< 5 ms',
        pass: addMed < 5,
      },
      { metric: 'added latency per message, p99 of paired differences', value: p99(seq.added), unit: 'ms' },
      {
        metric: 'relay time per message outside its own record of the CLI run (median / p99)',
        value: `${median(outside).toFixed(3)} / ${p99(outside).toFixed(3)}`,
        unit: 'ms',
      },
    ];
  } finally {
    closeAgent();
    await relay.stop();
    await fake.close();
  }
}

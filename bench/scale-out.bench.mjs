// Scale-out: the burst workload (20 senders × 5 messages, signed Twilio webhooks, a 200 ms fake CLI,
// 4 run slots per process) through 1, 2 and 3 built relays on one PostgreSQL database each, beside
// one relay on SQLite, in one run (bench/lib/scale-out-run.mjs). Per configuration: wall time of a
// round (first post to the last message's reply), ack p50 / p99, relay CPU per message (summed over
// the processes, the fake CLI's runs not included), and on PostgreSQL the round trips per message,
// counted on the server (bench/lib/pg-bench.mjs), against the budget docs/scale-out.md sets, plus
// the cluster's own CPU per message (with every statement logged, so an upper bound).
// On a 2-core machine the scaling is not the point; the cost per message is.
// Runs when named (`npm run bench -- scale-out`) or with BENCH_SCALE_OUT=1; BENCH_SCALE_OUT_ROUNDS
// (3) sets the rounds per configuration. Without initdb one row says why it was skipped.
// The breakdown of the round trips by kind goes to stderr.
import { startFakeTwilio } from './lib/fake-twilio.mjs';
import { noPostgres, startCluster } from './lib/pg-bench.mjs';
import { runConfig } from './lib/scale-out-run.mjs';
import { closeAgent } from './lib/webhook.mjs';

const ROUNDS = Number(process.env.BENCH_SCALE_OUT_ROUNDS ?? 3);
/** Round trips per message the engine may take on this workload (docs/scale-out.md says why). */
export const BUDGET = 12;

const named = process.argv.slice(2).some((a) => 'scale-out'.includes(a) && !a.startsWith('--'));

function rowsOf(label, r, extra = []) {
  const per = (x) => x / r.messages;
  return [
    { metric: `${label}: wall time of a round (100 messages)`, value: r.wallMs, unit: 'ms' },
    {
      metric: `${label}: ack p50 / p99`,
      value: `${r.ackP50.toFixed(3)} / ${r.ackP99.toFixed(3)}`,
      unit: 'ms',
    },
    { metric: `${label}: relay CPU per message (all processes)`, value: per(r.cpuMs), unit: 'ms' },
    ...extra,
  ];
}

export default async function () {
  if (!named && process.env.BENCH_SCALE_OUT !== '1')
    return [{ metric: 'skipped: runs when named (`npm run bench -- scale-out`)', value: '', unit: '' }];
  const fake = await startFakeTwilio();
  const rows = [];
  try {
    rows.push(...rowsOf('sqlite, 1 process', await runConfig({ fake, n: 1, rounds: ROUNDS, base: 10_000 })));
    const why = await noPostgres();
    if (why) {
      rows.push({ metric: `postgres: skipped: ${why}`, value: '', unit: '' });
      return rows;
    }
    const cluster = await startCluster();
    try {
      for (const n of [1, 2, 3]) {
        const url = await cluster.database(`aw_bench_${n}`);
        const marks = {};
        let pgCpu = 0;
        const window = {
          open: async () => {
            marks.from = await cluster.mark(`n${n}-from`);
            pgCpu = cluster.cpuMs();
          },
          close: async () => {
            pgCpu = cluster.cpuMs() - pgCpu;
            marks.to = await cluster.mark(`n${n}-to`);
          },
        };
        const r = await runConfig({
          fake,
          n,
          store: { engine: 'postgres', url },
          rounds: ROUNDS,
          base: 20_000 + 10_000 * n,
          window,
        });
        const trips = cluster.count(marks.from, marks.to);
        const perMsg = trips.n / r.messages;
        process.stderr.write(
          `postgres × ${n}: ${trips.n} round trips for ${r.messages} messages; by kind:\n${trips.kinds
            .map(([k, c]) => `  ${(c / r.messages).toFixed(2).padStart(6)}  ${k}`)
            .join('\n')}\n`,
        );
        rows.push(
          ...rowsOf(`postgres, ${n} process${n > 1 ? 'es' : ''}`, r, [
            {
              metric: `postgres, ${n} process${n > 1 ? 'es' : ''}: round trips per message (server log)`,
              value: perMsg,
              unit: '',
              target: `<= ${BUDGET}`,
              pass: perMsg <= BUDGET,
            },
            {
              metric: `postgres, ${n} process${n > 1 ? 'es' : ''}: PostgreSQL CPU per message (statements logged)`,
              value: pgCpu / r.messages,
              unit: 'ms',
            },
          ]),
        );
      }
    } finally {
      await cluster.stop();
    }
    return rows;
  } finally {
    closeAgent();
    await fake.close();
  }
}

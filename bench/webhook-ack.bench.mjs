// Webhook acknowledgement under load: how long Twilio waits for its 200 while the relay is busy.
// The built relay (its own process, maxConcurrentRuns 4) first gets 4 messages whose fake CLI
// sleeps; once all 4 sleep, K = 1000 signed webhooks from other chats are posted, P in flight at a time,
// and each one's time to a complete 200 is recorded (those messages wait in the store behind the
// cap). A second scenario keeps the 4 run slots churning instead: every measured webhook starts a
// trivial CLI run, so the relay spawns, parses and sends through the REST fake while it acks.
// A third, the burst (many people writing at once): 20 senders × 5 messages each, a sender's
// messages 50 ms apart and all senders at once, with 4 runs at a time and a 200 ms fake CLI, so
// agent start-ups (spawns, CLI start-up CPU, replies) overlap the
// acknowledgements. Repeated for BURST_ROUNDS rounds.
// The floor: the same posts against a bare node:http server in this process that answers 200.
// The churn and burst rows also give the relay's CPU per message, and its launcher's when one runs
// (BENCH_RELAY_CONFIG='{"agents":{"launcher":true}}').
import { createServer } from 'node:http';
import { startFakeTwilio } from './lib/fake-twilio.mjs';
import { relayHome } from './lib/relay-proc.mjs';
import { median, p99, sleep, until } from './lib/stats.mjs';
import { chat, closeAgent, post, smsParams } from './lib/webhook.mjs';

// 1000 samples: the p99 is then the 10th slowest, not a single stall of a shared machine.
const K = Number(process.env.BENCH_ACK_N ?? 1000);
/** Each churning post starts a CLI run (about 25 ms of CPU), so that scenario takes fewer. */
const K_CHURN = Number(process.env.BENCH_ACK_CHURN_N ?? 300);
const P = 4;
const C = 4;
const SENDERS = 20;
const PER_SENDER = 5;
const GAP_MS = 50;
const BURST_ROUNDS = Number(process.env.BENCH_ACK_BURST_ROUNDS ?? 5);

async function hammer(url, k, text) {
  const ms = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: P }, async () => {
      while (next < k) {
        const i = next++;
        const r = await post(url, smsParams(chat(100 + i), text(i)));
        if (r.status !== 200) throw new Error(`webhook answered ${r.status}`);
        ms.push(r.ms);
      }
    }),
  );
  return ms;
}

async function floor() {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/xml' });
      res.end('<?xml version="1.0" encoding="UTF-8"?><Response/>');
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  try {
    const url = `http://127.0.0.1:${server.address().port}/twilio/inbound`;
    await hammer(url, 50, (i) => `warm ${i}`);
    return await hammer(url, K, (i) => `floor ${i}`);
  } finally {
    closeAgent();
    await new Promise((r) => server.close(r));
  }
}

async function sleeping(fake) {
  const relay = await relayHome({
    apiBaseUrl: fake.url,
    fakeLog: true,
    queue: { maxConcurrentRuns: C, maxPendingPerChat: 10_000 },
  });
  try {
    await relay.start();
    for (let i = 0; i < C; i++) {
      const r = await post(relay.url, smsParams(chat(i), 'sleep:60000 stay busy'));
      if (r.status !== 200) throw new Error(`webhook answered ${r.status}`);
    }
    await until(() => relay.events().filter((e) => e.ev === 'sleep').length === C, '4 sleeping CLIs', 30_000);
    const ms = await hammer(relay.url, K, (i) => `while busy ${i}`);
    const sleepers = relay.events().filter((e) => e.ev === 'start').length;
    if (sleepers !== C) throw new Error(`${sleepers} CLIs ran, expected ${C} busy and the rest waiting`);
    return ms;
  } finally {
    closeAgent();
    await relay.stop();
  }
}

async function churning(fake) {
  const relay = await relayHome({ apiBaseUrl: fake.url, queue: { maxConcurrentRuns: C } });
  try {
    await relay.start();
    const before = fake.count();
    const cpu = cpuOf(relay);
    const ms = await hammer(relay.url, K_CHURN, (i) => `churn ${i}`);
    await until(() => fake.count() - before >= K_CHURN, `${K_CHURN} replies`, 120_000);
    return { ms, cpu: cpu(K_CHURN) };
  } finally {
    closeAgent();
    await relay.stop();
  }
}

/**
 * From now: the relay's own CPU (user + system) per message, and its launcher's (when
 * `agents.launcher` is on: BENCH_RELAY_CONFIG='{"agents":{"launcher":true}}').
 */
function cpuOf(relay) {
  const relay0 = relay.cpuMs();
  const launcher0 = relay.launcherCpuMs();
  return (n) => ({ relay: (relay.cpuMs() - relay0) / n, launcher: (relay.launcherCpuMs() - launcher0) / n });
}

export async function burst(fake) {
  const relay = await relayHome({ apiBaseUrl: fake.url, queue: { maxConcurrentRuns: C } });
  try {
    await relay.start();
    const ms = [];
    const cpu = cpuOf(relay);
    for (let round = 0; round < BURST_ROUNDS; round++) {
      const before = fake.count();
      await Promise.all(
        Array.from({ length: SENDERS }, async (_, s) => {
          for (let m = 0; m < PER_SENDER; m++) {
            if (m > 0) await sleep(GAP_MS);
            const r = await post(relay.url, smsParams(chat(1000 * round + s), `burst ${m} sleep:200`));
            if (r.status !== 200) throw new Error(`webhook answered ${r.status}`);
            ms.push(r.ms);
          }
        }),
      );
      // Every chat answered before the next round: each round starts from an idle relay.
      await until(() => fake.count() - before >= SENDERS, `replies to ${SENDERS} chats`, 120_000);
      await sleep(500);
    }
    return { ms, cpu: cpu(ms.length) };
  } finally {
    closeAgent();
    await relay.stop();
  }
}

export default async function () {
  const fake = await startFakeTwilio();
  try {
    const base = await floor();
    const busy = await sleeping(fake);
    const { ms: churn, cpu: churnCpu } = await churning(fake);
    const { ms: bursts, cpu: burstCpu } = await burst(fake);
    const pb = p99(busy);
    const pu = p99(bursts);
    return [
      {
        metric: `floor: bare node:http 200, ${K} posts, ${P} in flight (median / p99)`,
        value: `${median(base).toFixed(3)} / ${p99(base).toFixed(3)}`,
        unit: 'ms',
      },
      { metric: `relay, 4 CLIs sleeping: time to the 200, median`, value: median(busy), unit: 'ms' },
      {
        metric: `relay, 4 CLIs sleeping: time to the 200, p99`,
        value: pb,
        unit: 'ms',
        target: '< 50 ms',
        pass: pb < 50,
      },
      {
        metric: `relay, 4 run slots churning (each of ${K_CHURN} posts starts a trivial CLI run): median / p99`,
        value: `${median(churn).toFixed(3)} / ${p99(churn).toFixed(3)}`,
        unit: 'ms',
      },
      {
        metric: 'relay, churning: CPU per message, relay / its launcher',
        value: `${churnCpu.relay.toFixed(2)} / ${churnCpu.launcher.toFixed(2)}`,
        unit: 'ms',
      },
      {
        metric: `relay, burst: ${SENDERS} senders × ${PER_SENDER} messages ${GAP_MS} ms apart, 4 runs of a 200 ms CLI, ${BURST_ROUNDS} rounds (median / p99)`,
        value: `${median(bursts).toFixed(3)} / ${pu.toFixed(3)}`,
        unit: 'ms',
        target: 'p99 < 50 ms',
        pass: pu < 50,
      },
      {
        metric: 'relay, burst: CPU per message, relay / its launcher',
        value: `${burstCpu.relay.toFixed(2)} / ${burstCpu.launcher.toFixed(2)}`,
        unit: 'ms',
      },
      { metric: 'p99 relay (4 sleeping) / p99 floor', value: pb / p99(base), unit: '' },
    ];
  } finally {
    await fake.close();
  }
}

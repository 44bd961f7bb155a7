#!/usr/bin/env node
// Relay CPU per message, A/B: one built relay per checkout given on the command line (each a clone
// or worktree with its own `dist/`), all started at once on the same fake Twilio REST server, fed
// rounds of the same signed webhooks in turn (A, B, A, B, …) so machine noise hits each alike. CPU
// is the relay process's own (/proc utime + stime), not wall time: the machine may be shared.
//   node bench/relay-cpu-ab.mjs /path/to/old /path/to/new
// BENCH_N (messages per round, 60), BENCH_M (chats, 12), BENCH_ROUNDS (per relay, 6).
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startFakeTwilio } from './lib/fake-twilio.mjs';
import { postRound } from './lib/rounds.mjs';
import { median, range } from './lib/stats.mjs';
import { closeAgent } from './lib/webhook.mjs';

const N = Number(process.env.BENCH_N ?? 60);
const M = Number(process.env.BENCH_M ?? 12);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const roots = process.argv.slice(2).map((r) => resolve(r));
if (roots.length === 0) {
  console.error('usage: node bench/relay-cpu-ab.mjs <checkout> [<checkout> …]');
  process.exit(2);
}

const fake = await startFakeTwilio();
const relays = [];
try {
  for (const root of roots) {
    // Each checkout's own harness, so its relay is started the way that version expects.
    const { relayHome } = await import(pathToFileURL(`${root}/bench/lib/relay-proc.mjs`).href);
    const relay = await relayHome({
      apiBaseUrl: fake.url,
      queue: { maxConcurrentRuns: 4, whileBusy: 'followup', maxPendingPerChat: 10_000 },
    });
    relays.push({ root, relay, perMsg: [] });
    await relay.start();
    await postRound(relay.url, fake, { n: M * 2, chats: M, tag: `warm${relays.length}` });
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, r] of relays.entries()) {
      const cpu0 = r.relay.cpuMs();
      await postRound(r.relay.url, fake, { n: N, chats: M, tag: `r${round}x${i}` });
      r.perMsg.push((r.relay.cpuMs() - cpu0) / N);
    }
  }
  for (const r of relays)
    console.log(
      `${r.root}: relay CPU per message ${median(r.perMsg).toFixed(2)} ms (median of ${ROUNDS} rounds of ${N}; range ${range(r.perMsg)}; rounds ${r.perMsg.map((x) => x.toFixed(2)).join(' ')}; RSS ${(r.relay.rssKb() / 1024).toFixed(0)} MiB)`,
    );
} finally {
  for (const r of relays) await r.relay.stop();
  closeAgent();
  await fake.close?.();
}

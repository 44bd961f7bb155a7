#!/usr/bin/env node
// Relay CPU per message and added latency, A/B: one built relay per checkout given on the command
// line (each a clone or worktree with its own `dist/`), all started at once on the same fake Twilio
// REST server, fed rounds of the same signed webhooks in turn (A, B, A, B, …) so machine noise hits
// each alike. CPU is the relay process's own (/proc utime + stime, printed also apart: a fork's page
// table copy is system time), not wall time: the machine may be shared. After each CPU round, the
// same relay gets BENCH_SEQ messages one at a time, each paired with a bare spawn of the same fake
// CLI; added latency is the median of (webhook sent → REST create received) minus the bare run.
//   node bench/relay-cpu-ab.mjs /path/to/old /path/to/new
// BENCH_N (messages per round, 60), BENCH_M (chats, 12), BENCH_ROUNDS (per relay, 6), BENCH_SEQ
// (one-at-a-time pairs per round, 10; 0 skips them).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startFakeTwilio } from './lib/fake-twilio.mjs';
import { pairedLatency, postRound } from './lib/rounds.mjs';
import { median, p99, range } from './lib/stats.mjs';
import { closeAgent } from './lib/webhook.mjs';

const N = Number(process.env.BENCH_N ?? 60);
const M = Number(process.env.BENCH_M ?? 12);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const SEQ = Number(process.env.BENCH_SEQ ?? 10);
const roots = process.argv.slice(2).map((r) => resolve(r));
if (roots.length === 0) {
  console.error('usage: node bench/relay-cpu-ab.mjs <checkout> [<checkout> …]');
  process.exit(2);
}

/** utime and stime of `pid` in ms (/proc/<pid>/stat fields 14 and 15; USER_HZ is 100). */
function userSys(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(f[11]) * 10, sys: Number(f[12]) * 10 };
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
    relays.push({ root, relay, perMsg: [], user: [], sys: [], added: [] });
    await relay.start();
    await postRound(relay.url, fake, { n: M * 2, chats: M, tag: `warm${relays.length}` });
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, r] of relays.entries()) {
      const pid = r.relay.pid();
      const a = userSys(pid);
      await postRound(r.relay.url, fake, { n: N, chats: M, tag: `r${round}x${i}` });
      const b = userSys(pid);
      r.user.push((b.user - a.user) / N);
      r.sys.push((b.sys - a.sys) / N);
      r.perMsg.push((b.user - a.user + b.sys - a.sys) / N);
      if (SEQ > 0) r.added.push(...(await pairedLatency(r.relay.url, fake, SEQ, `s${round}x${i}`)).added);
    }
  }
  const f2 = (x) => x.toFixed(2);
  for (const r of relays) {
    console.log(
      `${r.root}: relay CPU per message ${f2(median(r.perMsg))} ms (user ${f2(median(r.user))}, system ${f2(median(r.sys))}; median of ${ROUNDS} rounds of ${N}; range ${range(r.perMsg)}; rounds ${r.perMsg.map(f2).join(' ')}; RSS ${(r.relay.rssKb() / 1024).toFixed(0)} MiB)`,
    );
    if (r.added.length > 0)
      console.log(
        `${r.root}: added latency per message ${f2(median(r.added))} ms median, ${f2(p99(r.added))} ms p99 (${r.added.length} one-at-a-time pairs with a bare spawn)`,
      );
  }
} finally {
  for (const r of relays) await r.relay.stop();
  closeAgent();
  await fake.close?.();
}

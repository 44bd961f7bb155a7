// One configuration of the scale-out bench: N built relays (each its own home, webhook port and
// 4 run slots, one config otherwise) on one store, and the burst workload of webhook-ack.bench.mjs
// (S senders × M messages, a sender's messages GAP ms apart, all senders at once, a 200 ms fake CLI)
// posted round-robin over the relays' webhooks, as a load balancer without affinity would: one chat's
// messages land on different processes, and the one holding the chat's lease runs them.
// A round ends when every message's marker came back in a reply at the fake Twilio.

import { relayHome } from './relay-proc.mjs';
import { median, p99, procCpuMs, sleep, until } from './stats.mjs';
import { chat, closeAgent, post, smsParams } from './webhook.mjs';

export const SENDERS = 20;
export const PER_SENDER = 5;
export const GAP_MS = 50;
export const SLOTS = 4;

/** Every marker in `markers` seen in a body the fake Twilio received since index `from`. */
function allReplied(fake, from, markers) {
  const seen = new Set();
  for (const { body } of fake.received.slice(from))
    for (const m of body.match(/k\d+x\d+x\d+/g) ?? []) seen.add(m);
  return markers.every((m) => seen.has(m));
}

/**
 * Runs `rounds` bursts through `n` relays on `store` (undefined: each on its own SQLite, so only
 * n = 1 makes sense). `window` (optional) is called around the measured part: `await window.open()`
 * before the first post, `await window.close()` after the last reply. Chats of round r are
 * numbered from `base + 100 r`, so no two configurations share a chat.
 */
export async function runConfig({ fake, n, store, rounds, base, window, limitMs = 180_000 }) {
  const relays = [];
  try {
    for (let i = 0; i < n; i++) {
      const r = await relayHome({ apiBaseUrl: fake.url, queue: { maxConcurrentRuns: SLOTS }, store });
      relays.push(r);
      await r.start(60_000);
    }
    // Warm-up, not measured: one message through each relay, its reply back.
    for (const [i, r] of relays.entries()) {
      const marker = `k0x${base + 90 + i}x0`;
      const from = fake.count();
      const res = await post(r.url, smsParams(chat(base + 90 + i), `${marker} sleep:10`));
      if (res.status !== 200) throw new Error(`warm-up webhook answered ${res.status}`);
      await until(() => allReplied(fake, from, [marker]), 'the warm-up reply', 60_000);
    }
    const cpu0 = relays.map((r) => procCpuMs(r.pid()));
    const ackMs = [];
    let wallMs = 0;
    let next = 0;
    await window?.open();
    for (let round = 1; round <= rounds; round++) {
      // Fresh connections each round: a keep-alive socket left idle past the relay's keep-alive
      // timeout may be closed by the relay just as a post reuses it (ECONNRESET, the client's race).
      closeAgent();
      const from = fake.count();
      const markers = [];
      const t0 = performance.now();
      await Promise.all(
        Array.from({ length: SENDERS }, async (_, s) => {
          for (let m = 0; m < PER_SENDER; m++) {
            if (m > 0) await sleep(GAP_MS);
            const marker = `k${round}x${base + 100 * round + s}x${m}`;
            markers.push(marker);
            const relay = relays[next++ % relays.length];
            const r = await post(relay.url, smsParams(chat(base + 100 * round + s), `${marker} sleep:200`));
            if (r.status !== 200) throw new Error(`webhook answered ${r.status}`);
            ackMs.push(r.ms);
          }
        }),
      );
      await until(
        () => allReplied(fake, from, markers),
        `replies to all ${markers.length} messages`,
        limitMs,
        10,
      );
      wallMs += performance.now() - t0;
    }
    await window?.close();
    const cpuMs = relays.reduce((sum, r, i) => sum + procCpuMs(r.pid()) - cpu0[i], 0);
    const messages = rounds * SENDERS * PER_SENDER;
    return { messages, wallMs: wallMs / rounds, ackP50: median(ackMs), ackP99: p99(ackMs), cpuMs, ackMs };
  } finally {
    for (const r of relays) await r.stop();
  }
}

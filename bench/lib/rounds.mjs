// The two measurements every full-path bench makes against a relay listening at `url` that replies
// through the fake Twilio REST server `fake`: a round of signed webhooks, and one-at-a-time pairs.
import { spawnOnce } from './bare-spawn.mjs';
import { until } from './stats.mjs';
import { chat, post, smsParams } from './webhook.mjs';

/** Webhooks in flight at once while a round posts its messages. */
const POSTERS = 4;

/**
 * Posts `n` messages over `chats` chats, `tag message<i>`, and waits until every one has its reply
 * (checked by body). Returns the ms from the first post to the last reply received.
 */
export async function postRound(url, fake, { n, chats, tag }) {
  const before = fake.count();
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: POSTERS }, async () => {
      while (next < n) {
        const i = next++;
        const r = await post(url, smsParams(chat(i % chats), `${tag} message${i}`));
        if (r.status !== 200) throw new Error(`webhook answered ${r.status}`);
      }
    }),
  );
  await until(() => fake.count() - before >= n, `${n} replies`, 120_000, 2);
  const ms = fake.received[fake.received.length - 1].at - t0;
  const bodies = fake.received.slice(before).map((m) => m.body);
  for (let i = 0; i < n; i++) {
    if (!bodies.some((b) => b.endsWith(`${tag} message${i}`)))
      throw new Error(`no reply to ${tag} message${i}`);
  }
  return ms;
}

/**
 * `k` messages one at a time, each followed by a bare spawn of the same CLI: the relay's latency
 * (webhook sent to REST create received), the bare run's, and their difference, per pair.
 */
export async function pairedLatency(url, fake, k, tag) {
  const relayLat = [];
  const bare = [];
  const added = [];
  for (let i = 0; i < k; i++) {
    const marker = `${tag}.seq${i}.`;
    const arrived = fake.waitBody(marker);
    const r = await post(url, smsParams(chat(999), `one at a time ${marker}`));
    if (r.status !== 200) throw new Error(`webhook answered ${r.status}`);
    const lat = (await arrived) - r.t0;
    const t1 = performance.now();
    await spawnOnce(`one at a time ${marker}`);
    const b = performance.now() - t1;
    relayLat.push(lat);
    bare.push(b);
    added.push(lat - b);
  }
  return { relayLat, bare, added };
}

// Relay overhead: the same N messages over M chats through the core (inbox, lanes, real agent
// runner, outbox, a recording channel, real SQLite) with a trivial fake CLI, against spawning that
// CLI N times at the same concurrency with no relay, in the same process. Rounds alternate between
// the two so machine noise hits both alike; the median round is reported.

import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolvePaths } from '../dist/config/paths.js';
import { configSchema } from '../dist/config/schema.js';
import { createLogger } from '../dist/log.js';
import { agentResolver, mediaPolicy } from '../dist/queue/adapters.js';
import { Queue } from '../dist/queue/queue.js';
import { openDb } from '../dist/store/sqlite/db.js';
import { QUEUE_MIGRATIONS } from '../dist/store/sqlite/queue-schema.js';
import { sqliteQueueStore } from '../dist/store/sqlite/queue-sqlite.js';
import { sqliteFile } from '../src/store/sqlite/open.js';

const FAKE = join(dirname(fileURLToPath(import.meta.url)), '../test/e2e/fixtures/fake-claude.mjs');
const N = Number(process.env.BENCH_N ?? 120);
const M = Number(process.env.BENCH_M ?? 12);
const C = 4;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const SEQUENTIAL = Number(process.env.BENCH_SEQ ?? 41);

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** One CLI run with no relay: the argv the claude spec builds, prompt on stdin, output read whole. */
function spawnOnce(prompt) {
  return new Promise((resolve, reject) => {
    const args = [FAKE, '-p', '--output-format', 'stream-json', '--verbose', '--session-id', randomUUID()];
    const child = spawn(process.execPath, args, { env: { PATH: process.env.PATH }, detached: true });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 && out.includes('"result"') ? resolve() : reject(new Error(`exit ${code}`)),
    );
    child.stdin.end(prompt);
  });
}

async function baseline(n, concurrency) {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) await spawnOnce(`message ${next++}`);
    }),
  );
  return performance.now() - t0;
}

class BenchChannel {
  name = 'twilio';
  textLimit = 1600;
  sentAt = new Map();
  async start() {}
  async stop() {}
  status() {
    return { type: 'connected', since: 0 };
  }
  async send(_chatId, item) {
    this.sentAt.set(item.text, performance.now());
    return { ok: true };
  }
}

function relay() {
  const dir = mkdtempSync(join(tmpdir(), 'aw-bench-'));
  const config = configSchema.parse({
    agent: { command: [process.execPath, FAKE], mode: 'cold' },
    queue: { maxConcurrentRuns: C, whileBusy: 'followup', maxPendingPerChat: 10_000 },
    whatsapp: { enabled: false },
  });
  const paths = resolvePaths({ AGENTWIRE_HOME: dir });
  const log = createLogger({ level: 'silent', destination: { write() {} } });
  const db = openDb(sqliteFile(paths.home), QUEUE_MIGRATIONS);
  const channel = new BenchChannel();
  const resolveAgent = agentResolver(config, paths, { PATH: process.env.PATH }, log);
  const runMs = [];
  const resolve = (kind) => {
    const r = resolveAgent(kind);
    if (!r.ok) return r;
    const run = async (req) => {
      const res = await r.agent.run(req);
      runMs.push(res.durationMs);
      return res;
    };
    return { ok: true, agent: { ...r.agent, run } };
  };
  const queue = new Queue({
    store: sqliteQueueStore(db),
    channels: new Map([['twilio', channel]]),
    resolve,
    mediaPolicy: mediaPolicy(config),
    config,
    log,
    defaultCwd: paths.workspace,
  });
  queue.start();
  let seq = 0;
  const inbound = (chatId, text) =>
    queue.handleInbound({
      channel: 'twilio',
      chatId,
      senderId: chatId,
      messageId: `b${++seq}`,
      text,
      media: [],
      isGroup: false,
      mentioned: false,
      at: Date.now(),
    });
  return {
    channel,
    runMs,
    queue,
    inbound,
    close: async () => {
      await queue.shutdown(0);
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function relayRound(n, chats) {
  const r = relay();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await r.inbound(`+1555${String(i % chats).padStart(7, '0')}`, `message ${i}`);
  await r.queue.whenIdle();
  const ms = performance.now() - t0;
  if (r.channel.sentAt.size !== n) throw new Error(`relay answered ${r.channel.sentAt.size} of ${n}`);
  await r.close();
  return ms;
}

/**
 * Per message, one at a time, alternating one message through the relay with one bare spawn so a
 * busy machine slows both alike: the relay's end-to-end latency, the spawn's, and their difference.
 */
async function sequential(k) {
  const r = relay();
  const relayLat = [];
  const spawnLat = [];
  const diff = [];
  const coreOnly = [];
  for (let i = 0; i < k; i++) {
    const t0 = performance.now();
    await r.inbound('+15550000001', `seq ${i}`);
    await r.queue.whenIdle();
    const lat = r.channel.sentAt.get(`reply: seq ${i}`) - t0;
    const t1 = performance.now();
    await spawnOnce(`seq ${i}`);
    const bare = performance.now() - t1;
    relayLat.push(lat);
    spawnLat.push(bare);
    diff.push(lat - bare);
    coreOnly.push(lat - r.runMs[r.runMs.length - 1]);
  }
  await r.close();
  return { relay: median(relayLat), spawn: median(spawnLat), added: median(diff), core: median(coreOnly) };
}

export default async function () {
  await baseline(C * 2, C); // warm the file cache
  const ratios = [];
  const base = [];
  const core = [];
  for (let round = 0; round < ROUNDS; round++) {
    const b = await baseline(N, C);
    const r = await relayRound(N, M);
    base.push(b);
    core.push(r);
    ratios.push(r / b);
  }
  const seq = await sequential(SEQUENTIAL);
  const ratio = median(ratios);
  const added = seq.added;
  return [
    {
      metric: `median wall time, ${N} messages over ${M} chats, ${C} at once: no relay`,
      value: median(base),
      unit: 'ms',
    },
    {
      metric: `median wall time, ${N} messages over ${M} chats, ${C} at once: through the relay`,
      value: median(core),
      unit: 'ms',
    },
    {
      metric: `ratio relay / no relay (median of ${ROUNDS} paired rounds; range ${Math.min(...ratios).toFixed(3)}-${Math.max(...ratios).toFixed(3)})`,
      value: ratio,
      unit: '',
      target: '<= 1.10',
      pass: ratio <= 1.1,
    },
    { metric: 'median latency per message, one at a time: no relay', value: seq.spawn, unit: 'ms' },
    { metric: 'median latency per message, one at a time: through the relay', value: seq.relay, unit: 'ms' },
    {
      metric: 'added latency per message (median of paired differences)',
      value: added,
      unit: 'ms',
      target: '< 5 ms',
      pass: added < 5,
    },
    { metric: 'core time per message outside the agent run (median)', value: seq.core, unit: 'ms' },
  ];
}

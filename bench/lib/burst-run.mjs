// The burst bench proper (bench/burst.bench.mjs starts it inside the loopback-only namespace, with
// `--import ./bench/lib/ts-hook.mjs`). For each real CLI: first one chat, BASE_TURNS messages one at
// a time through a warm relay (one baseline every burst's agent CPU is compared with); then, for each
// messages-per-sender M and queue mode of the run, one warm chat of the burst's own shape (M messages
// GAP_MS apart, that `whileBusy`: the burst with one sender, the other baseline; see
// bench/lib/burst-table.mjs for why two); then each burst: S senders × M messages, a sender's messages GAP_MS apart and all senders at once, as
// signed Twilio webhooks into the built `agentwire relay` (its own process; 4 run slots and the
// default warm pool), warm and cold, `whileBusy` collect and followup, against the fake model (it
// answers at once). Prints one JSON object per measured relay on stderr (`burst-raw `), its rows as
// one JSON line on stdout; progress goes to stderr.
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { cliEnv } from '../../test/clis/cli-env.ts';
import { againstBareServer } from './ack-floor.mjs';
import { compare } from './burst-table.mjs';
import { startFakeModelProc } from './fake-model-client.mjs';
import { startFakeTwilio } from './fake-twilio.mjs';
import { sampleTree } from './proc-tree.mjs';
import { ROOT } from './real-clis.mjs';
import { relayHome } from './relay-proc.mjs';
import { childrenCpuMs, median, p99, sleep, until } from './stats.mjs';
import { chat, closeAgent, post, smsParams } from './webhook.mjs';

const list = (name, dflt) => (process.env[name] ?? dflt).split(',').filter(Boolean);
const CLIS = list('BENCH_BURST_CLIS', 'claude,codex');
const SIZES = list('BENCH_BURST_SIZES', '10x4,20x5').map((s) => s.split('x').map(Number));
const MODES = list('BENCH_BURST_MODES', 'warm,cold');
const QUEUES = list('BENCH_BURST_QUEUES', 'collect,followup');
const BASE_TURNS = Number(process.env.BENCH_BURST_BASE_TURNS ?? 5);
const WARM_UP = process.env.BENCH_BURST_WARM_UP !== '0';
/** BENCH_BURST_BASELINES=0: the bursts alone (an A/B of the acks or walls needs no baselines). */
const BASELINES = process.env.BENCH_BURST_BASELINES !== '0';
/** Longest one relay may take to answer everything before its row is given up as an error. */
const LIMIT_MS = Number(process.env.BENCH_BURST_LIMIT_S ?? 600) * 1000;
const GAP_MS = 50;
const SLOTS = 4;
const BIN = join(process.env.AGENTWIRE_CLIS_DIR, 'bin');
const MARK = 'AGENTWIRE_BENCH_MARK';

const say = (m) => process.stderr.write(`burst: ${m}\n`);
/**
 * One Node compile cache for every relay of the run, linked in as each relay's own
 * (`<home>/cache/node-compile`): a relay that has run before has a warm cache, and a fresh home per
 * relay would make every burst pay the first compile. A relay without the cache ignores the link.
 */
const COMPILE_CACHE = mkdtempSync(join(tmpdir(), 'aw-bench-burst-cache-'));
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

/** What the relay's store says: messages in, still open, failed; runs; replies still to send. */
function storeCounts(db) {
  const one = (sql) => Object.values(db.prepare(sql).get())[0];
  return {
    messages: one(`SELECT count(*) FROM inbox WHERE kind = 'message'`),
    open: one(`SELECT count(*) FROM inbox WHERE kind = 'message' AND status IN ('pending', 'running')`),
    failed: one(`SELECT count(*) FROM inbox WHERE kind = 'message' AND status IN ('failed', 'dropped')`),
    runs: one('SELECT count(*) FROM runs'),
    unsent: one(`SELECT count(*) FROM outbox WHERE status = 'pending'`),
    sendFailed: one(`SELECT count(*) FROM outbox WHERE status = 'failed'`),
  };
}

/** Lines holding `needle` in the relay's log files (agentwire.log and its rotated copies). */
function countLines(dir, needle) {
  if (!existsSync(dir)) return 0;
  let n = 0;
  for (const f of readdirSync(dir).filter((f) => f.startsWith('agentwire.log'))) {
    for (const line of readFileSync(join(dir, f), 'utf8').split('\n')) if (line.includes(needle)) n++;
  }
  return n;
}

/**
 * One relay from start to exit: `drive(relay)` posts and returns the ack times; then every message
 * is answered. The relay's own CPU is sampled from /proc; the agents' is what this process's reaped
 * children used (the relay, and through its cutime every CLI it reaped) minus the relay's own.
 */
async function measure(kind, { mode, whileBusy, label, senders, per }, model, fake, drive) {
  const id = `${kind}-${label}-${randomUUID().slice(0, 8)}`.replace(/[^\w.-]/g, '-');
  const base = await model.put(id, { mode: 'ok', reply: 'OK.' });
  const state = mkdtempSync(join(tmpdir(), `aw-bench-burst-${kind}-`));
  const mark = randomUUID();
  const env = { ...cliEnv(kind, state, base, BIN), [MARK]: mark };
  const relay = await relayHome({
    apiBaseUrl: fake.url,
    queue: { maxConcurrentRuns: SLOTS, whileBusy, maxPendingPerChat: 100 },
    // info: the pool logs each warm process it starts, the exact count of warm starts.
    logLevel: 'info',
    agent: { kind, mode, command: [join(BIN, kind)], cwd: join(state, 'work'), timeoutSeconds: 300, env },
  });
  mkdirSync(join(relay.dir, 'cache'), { recursive: true });
  symlinkSync(COMPILE_CACHE, join(relay.dir, 'cache', 'node-compile'));
  const kids0 = childrenCpuMs();
  const loadBefore = load();
  let db;
  let tree;
  try {
    await relay.start(60_000);
    tree = sampleTree(relay.pid(), `${MARK}=${mark}`);
    db = new DatabaseSync(join(relay.dir, 'agentwire.db'), { readOnly: true });
    if (WARM_UP) await warmUp(relay, fake);
    const before = fake.count();
    const t0 = performance.now();
    const acks = await drive(relay);
    let c = storeCounts(db);
    await until(
      () => {
        c = storeCounts(db);
        // The run history is written just after the reply is handed to the outbox: wait for both.
        return c.open === 0 && c.unsent === 0 && c.runs >= fake.count() - before;
      },
      `every message of ${label} answered`,
      LIMIT_MS,
      100,
    );
    const wallMs = fake.received[fake.received.length - 1].at - t0;
    const seen = tree.stop();
    const warmStarts = countLines(join(relay.dir, 'logs'), '"warm process started"');
    tree = undefined;
    db.close();
    db = undefined;
    await relay.stop();
    const totalMs = childrenCpuMs() - kids0;
    const requests = await model.requests(id);
    return {
      kind,
      label,
      mode,
      whileBusy,
      senders,
      per,
      wallMs,
      acks,
      ...c,
      replies: fake.count() - before,
      modelRequests: requests,
      // Cold: one process per turn by construction. Warm: the pool's own log lines.
      starts: mode === 'warm' ? warmStarts : c.runs,
      startsSeen: seen.starts,
      peakAgents: seen.peakAgents,
      peakRssMiB: seen.peakRssKb / 1024,
      relayCpuMs: seen.rootCpuMs,
      relayStartCpuMs: seen.firstRootCpuMs,
      agentCpuMs: totalMs - seen.rootCpuMs,
      load: `${loadBefore} → ${load()}`,
    };
  } finally {
    tree?.stop();
    db?.close();
    closeAgent();
    await relay.stop();
    rmSync(state, { recursive: true, force: true });
  }
}

/**
 * Each webhook's send time (epoch ms) and time to its 200, printed in the relay's `burst-raw` line
 * with BENCH_ACK_LOG=1 (for bench/lib/loop-probe-report.mjs).
 */
const ACK_LOG = process.env.BENCH_ACK_LOG === '1';
const ackLog = [];

/** S senders × M messages, GAP_MS apart per sender, all senders at once; the ack time of each. */
const burstOf = (senders, per) => async (relay) => {
  const acks = [];
  await Promise.all(
    Array.from({ length: senders }, async (_, s) => {
      for (let m = 0; m < per; m++) {
        if (m > 0) await sleep(GAP_MS);
        const at = Date.now();
        const r = await post(relay.url, smsParams(chat(s), `Sender ${s}, message ${m}: say OK.`));
        if (r.status !== 200) throw new Error(`webhook answered ${r.status}`);
        acks.push(r.ms);
        if (ACK_LOG) ackLog.push([at, Math.round(r.ms)]);
      }
    }),
  );
  return acks;
};

/**
 * A relay in service has answered webhooks before a burst comes; one started for the row has not,
 * and its first signed webhook took 24 ms inside it (lazy code, the first signature, the first
 * statements) where later ones take 2-4 ms, so a round of simultaneous acks queued behind it. One
 * `/help` from a number outside the burst goes through the signature check, the parse, the gate,
 * the command and a reply sent, starts no agent, and is left out of the row's acks and replies.
 * BENCH_BURST_WARM_UP=0 measures a relay's very first webhooks instead.
 */
async function warmUp(relay, fake) {
  const before = fake.count();
  const r = await post(relay.url, smsParams(chat(999_999), '/help'));
  if (r.status !== 200) throw new Error(`the warm-up webhook answered ${r.status}`);
  await until(() => fake.count() > before, 'the warm-up /help reply', LIMIT_MS, 20);
}

/** One chat, `turns` messages, each sent once the previous one's reply arrived. */
const oneChat = (fake, turns) => async (relay) => {
  const acks = [];
  for (let i = 0; i < turns; i++) {
    const before = fake.count();
    const r = await post(relay.url, smsParams(chat(0), `Message ${i}: say OK.`));
    if (r.status !== 200) throw new Error(`webhook answered ${r.status}`);
    acks.push(r.ms);
    await until(() => fake.count() > before, `reply ${i}`, LIMIT_MS, 20);
  }
  return acks;
};

const f0 = (x) => x.toFixed(0);
/** Every relay measured so far in this run (the baselines among them), for `compare`. */
const measured = [];

function rowsFor(r) {
  const name = `${r.kind} ${r.label}`;
  const c = compare(r, measured);
  const rows = [
    {
      metric: `${name}: wall / turns for ${r.messages} messages (per chat) / process starts (seen in /proc) / peak live agents / failed`,
      value: `${(r.wallMs / 1000).toFixed(1)} s / ${r.runs} (${c.turnsPerChat.toFixed(1)}) / ${r.starts} (${r.startsSeen}) / ${r.peakAgents} / ${r.failed + r.sendFailed}`,
      unit: '',
    },
    {
      metric: `${name}: agent CPU per turn / per message (relay CPU per turn after its start; peak RSS of relay + agents; load avg)`,
      value: `${f0(c.perTurn)} / ${f0(c.perMessage)} ms (${f0((r.relayCpuMs - r.relayStartCpuMs) / Math.max(1, r.runs))} ms; ${f0(r.peakRssMiB)} MiB; ${r.load})`,
      unit: '',
    },
    {
      metric: `${name}: ack median / p99 (${r.acks.length} webhooks)`,
      value: `${median(r.acks).toFixed(1)} / ${p99(r.acks).toFixed(1)}`,
      unit: 'ms',
      target: 'p99 < 50 ms',
      pass: p99(r.acks) < 50,
    },
  ];
  if (r.mode !== 'warm') return rows;
  if (c.xOne !== undefined)
    rows.push({
      metric: `${name}: agent CPU per turn / one warm chat's, ${BASE_TURNS} messages one at a time`,
      value: c.xOne,
      unit: '',
      target: '<= 2',
      pass: c.xOne <= 2,
    });
  if (c.xShape !== undefined)
    rows.push(
      {
        metric: `${name}: agent CPU per turn / one warm chat's of the same shape (${r.per} messages, ${r.whileBusy})`,
        value: c.xShape,
        unit: '',
        target: '<= 2',
        pass: c.xShape <= 2,
      },
      {
        metric: `${name}: agent CPU per message / one warm chat's of the same shape`,
        value: c.xShapePerMessage,
        unit: '',
      },
    );
  return rows;
}

/** The two warm baselines of one CLI (bench/lib/burst-table.mjs says why two), into `measured`. */
async function baselines(kind) {
  say(`${kind}: one warm chat, ${BASE_TURNS} turns one at a time (load ${load()})`);
  try {
    const r = await measure(
      kind,
      {
        mode: 'warm',
        whileBusy: 'followup',
        label: `one warm chat × ${BASE_TURNS}`,
        senders: 1,
        per: BASE_TURNS,
      },
      model,
      fake,
      oneChat(fake, BASE_TURNS),
    );
    raw(r);
    measured.push(r);
    rows.push(...rowsFor(r));
  } catch (err) {
    rows.push({ metric: `${kind} one warm chat: error: ${err.message}`, value: '', unit: '' });
  }
  // The same-shape baselines: the burst with one sender, once per messages-per-sender and queue.
  for (const per of [...new Set(SIZES.map(([, m]) => m))]) {
    for (const whileBusy of QUEUES) {
      const label = `warm ${whileBusy} 1×${per}`;
      say(`${kind}: ${label}, one chat of the bursts' shape (load ${load()})`);
      try {
        const spec = { mode: 'warm', whileBusy, label, senders: 1, per };
        const r = await measure(kind, spec, model, fake, burstOf(1, per));
        raw(r);
        measured.push(r);
        rows.push(...rowsFor(r));
      } catch (err) {
        rows.push({ metric: `${kind} ${label}: error: ${err.message}`, value: '', unit: '' });
      }
    }
  }
}

// Warm the shared cache once, as a relay's first agent process would (the MCP helper flushes its
// cache right after loading, then exits at the end of its input).
spawnSync(process.execPath, [join(ROOT, 'dist/cli/bin.js'), 'mcp'], {
  env: { PATH: process.env.PATH, NODE_COMPILE_CACHE: COMPILE_CACHE },
  input: '',
  timeout: 30_000,
});
const model = await startFakeModelProc();
const fake = await startFakeTwilio();
const rows = [];
const raw = (r) =>
  process.stderr.write(
    `burst-raw ${JSON.stringify({ ...r, acks: undefined, ackP50: median(r.acks), ackP99: p99(r.acks), ...(ACK_LOG && { ackLog: ackLog.splice(0) }) })}\n`,
  );
try {
  // The acks' floor per burst size, before any relay (bench/lib/ack-floor.mjs): no relay's part.
  // A first burst, not counted, warms this client's own code, as it is for every relay after.
  for (const [senders, per] of SIZES) {
    await againstBareServer(burstOf(senders, per));
    const acks = await againstBareServer(burstOf(senders, per));
    ackLog.length = 0;
    rows.push({
      metric: `ack floor ${senders}×${per}: the same burst against a bare node:http server, median / p99`,
      value: `${median(acks).toFixed(1)} / ${p99(acks).toFixed(1)}`,
      unit: 'ms',
    });
  }
  for (const kind of CLIS) {
    if (BASELINES) await baselines(kind);
    for (const [senders, per] of SIZES) {
      for (const mode of MODES) {
        const walls = {};
        for (const whileBusy of QUEUES) {
          const label = `${mode} ${whileBusy} ${senders}×${per}`;
          say(`${kind}: ${label} (load ${load()})`);
          try {
            const spec = { mode, whileBusy, label, senders, per };
            const r = await measure(kind, spec, model, fake, burstOf(senders, per));
            raw(r);
            measured.push(r);
            walls[whileBusy] = r.wallMs;
            rows.push(...rowsFor(r));
          } catch (err) {
            rows.push({ metric: `${kind} ${label}: error: ${err.message}`, value: '', unit: '' });
          }
        }
        if (walls.collect && walls.followup) {
          const x = walls.followup / walls.collect;
          rows.push({
            metric: `${kind} ${mode} ${senders}×${per}: wall followup / collect`,
            value: x,
            unit: '',
            target: '<= 1.5',
            pass: x <= 1.5,
          });
        }
      }
    }
  }
} finally {
  model.close();
  await fake.close();
  rmSync(COMPILE_CACHE, { recursive: true, force: true });
}
process.stdout.write(`${JSON.stringify(rows)}\n`);

// The warm bench proper (bench/warm.bench.mjs starts it inside the loopback-only namespace, with
// `--import ./bench/lib/ts-hook.mjs`). For each real CLI, one CLI at a time: TURNS messages in one
// chat through a cold relay, then the same through a warm one, against the fake model (it answers
// at once). Prints its rows as one JSON line on stdout; progress goes to stderr.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliEnv } from '../../test/clis/cli-env.ts';
import { startFakeModelProc } from './fake-model-client.mjs';
import { groupUsage, launcherCpuMs, leadersWith } from './proc-group.mjs';
import { childrenCpuMs, median, quantile, sleep } from './stats.mjs';
import { relayHome, startBenchRelay } from './warm-relay.mjs';

const TURNS = Number(process.env.BENCH_WARM_TURNS ?? 20);
const ALL = ['claude', 'codex', 'pi', 'opencode', 'gemini'];
const CLIS = process.env.BENCH_WARM_CLIS ? process.env.BENCH_WARM_CLIS.split(',') : ALL;
const BIN = join(process.env.AGENTWIRE_CLIS_DIR, 'bin');
const CHAT = '+15550000001';
const MARK = 'AGENTWIRE_BENCH_MARK';

const say = (m) => process.stderr.write(`warm: ${m}\n`);
const ownCpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** TURNS turns in one chat through a relay in `mode`; times, CPU and (warm) the idle group's RSS. */
async function phase(kind, mode, model) {
  const id = `${kind}-${mode}-${randomUUID().slice(0, 8)}`;
  const base = await model.put(id, { mode: 'ok', reply: 'Reply 0.' });
  const state = mkdtempSync(join(tmpdir(), `aw-bench-${kind}-`));
  const mark = randomUUID();
  const env = { ...cliEnv(kind, state, base, BIN), [MARK]: mark };
  const home = relayHome({
    agent: { kind, mode, command: [join(BIN, kind)], cwd: join(state, 'work'), timeoutSeconds: 300, env },
    agents: { warm: { maxProcesses: 2, idleMinutes: 60 } },
    queue: { whileBusy: 'followup' },
  });
  const r = await startBenchRelay(home);
  const ms = [];
  const at = [];
  // This process runs the relay and the bench's own work; what the bench does between turns (the
  // scenario's fetch, the scans of /proc below: about 8 ms a turn, more than the relay's own) is
  // taken out of the relay's figure.
  let benchMs = 0;
  const asBench = async (fn) => {
    const c0 = ownCpuMs();
    try {
      return await fn();
    } finally {
      benchMs += ownCpuMs() - c0;
    }
  };
  try {
    const cpu0 = ownCpuMs();
    const kids0 = childrenCpuMs();
    const launcher0 = launcherCpuMs();
    for (let i = 1; i <= TURNS; i++) {
      await asBench(() => model.put(id, { mode: 'ok', reply: `Reply ${i}.` }));
      const out = await r.say(CHAT, `Message ${i}: say the next number.`);
      if (out.text !== `Reply ${i}.`)
        throw new Error(`${kind} ${mode} turn ${i} answered ${JSON.stringify(out.text)}`);
      ms.push(out.ms);
      // After each turn: the relay's CPU, reaped children's, and the live groups' (warm).
      // The launcher's own CPU is the relay's (its starts); what it reaped, the cold runs' CLIs.
      const relayMs = ownCpuMs() - cpu0 - benchMs;
      const { groups, launcher } = await asBench(() => ({
        groups: leadersWith(MARK, mark).map((p) => groupUsage(p)),
        launcher: launcherCpuMs(),
      }));
      at.push({
        relay: relayMs + launcher.own - launcher0.own,
        cli:
          childrenCpuMs() -
          kids0 +
          launcher.children -
          launcher0.children +
          groups.reduce((s, g) => s + g.cpuMs, 0),
        leaders: groups.length,
      });
    }
    let rssKb;
    if (mode === 'warm') {
      await sleep(1000);
      const leaders = leadersWith(MARK, mark);
      if (leaders.length !== 1)
        throw new Error(`${kind}: expected one warm process, found ${leaders.length}`);
      rssKb = groupUsage(leaders[0]).rssKb;
    }
    return { ms, at, rssKb };
  } finally {
    await r.stop();
    // The relay's home and the CLI's state (its HOME, sessions, work folder) are this phase's only.
    rmSync(home.dir, { recursive: true, force: true });
    rmSync(state, { recursive: true, force: true });
  }
}

function rowsFor(kind, cold, warm) {
  const per = (p, from = 0) => {
    const a = from === 0 ? { relay: 0, cli: 0 } : p.at[from - 1];
    const z = p.at.at(-1);
    const n = p.at.length - from;
    return { relay: (z.relay - a.relay) / n, cli: (z.cli - a.cli) / n };
  };
  const c = per(cold);
  const w = per(warm);
  const ws = per(warm, 1);
  const cMed = median(cold.ms);
  const cP90 = quantile(cold.ms, 0.9);
  const wMed = median(warm.ms);
  const wP90 = quantile(warm.ms, 0.9);
  const timeRatio = wMed / cMed;
  const cpuRatio = (w.relay + w.cli) / (c.relay + c.cli);
  const n = cold.ms.length;
  return [
    {
      metric: `${kind}: cold, message in to reply out, median / p90 (${n} turns)`,
      value: `${cMed.toFixed(0)} / ${cP90.toFixed(0)}`,
      unit: 'ms',
    },
    {
      metric: `${kind}: warm, message in to reply out, median / p90 (${n} turns)`,
      value: `${wMed.toFixed(0)} / ${wP90.toFixed(0)}`,
      unit: 'ms',
    },
    {
      metric: `${kind}: time ratio warm / cold (median; p90 ${(wP90 / cP90).toFixed(3)})`,
      value: timeRatio,
      unit: '',
      target: '<= 0.15',
      pass: timeRatio <= 0.15,
    },
    {
      metric: `${kind}: cold CPU per turn, relay + CLI`,
      value: `${c.relay.toFixed(0)} + ${c.cli.toFixed(0)}`,
      unit: 'ms',
    },
    {
      metric: `${kind}: warm CPU per turn, relay + CLI (start-up spread over ${n} turns)`,
      value: `${w.relay.toFixed(0)} + ${w.cli.toFixed(0)}`,
      unit: 'ms',
    },
    {
      metric: `${kind}: warm CPU per turn after the first, relay + CLI`,
      value: `${ws.relay.toFixed(0)} + ${ws.cli.toFixed(0)}`,
      unit: 'ms',
    },
    {
      metric: `${kind}: CPU ratio warm / cold (after the first: ${((ws.relay + ws.cli) / (c.relay + c.cli)).toFixed(3)})`,
      value: cpuRatio,
      unit: '',
      target: '<= 0.25',
      pass: cpuRatio <= 0.25,
    },
    { metric: `${kind}: warm first turn (start-up included)`, value: warm.ms[0], unit: 'ms' },
    {
      metric: `${kind}: RSS of the idle warm process group after ${n} turns`,
      value: warm.rssKb / 1024,
      unit: 'MiB',
    },
  ];
}

const model = await startFakeModelProc();
const rows = [];
try {
  for (const kind of CLIS) {
    say(`${kind}: ${TURNS} cold turns`);
    const cold = await phase(kind, 'cold', model);
    say(`${kind}: ${TURNS} warm turns`);
    const warm = await phase(kind, 'warm', model);
    rows.push(...rowsFor(kind, cold, warm));
  }
} finally {
  model.close();
}
process.stdout.write(`${JSON.stringify(rows)}\n`);

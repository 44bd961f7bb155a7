// What relay-overhead's full-path target asks of any relay on this machine. The same rounds as
// relay-overhead (N signed webhooks over M chats, 4 CLIs at a time, against N bare spawns of the
// same fake CLI in this process, alternating, median of the paired ratios), run against the two
// stripped-down relays of lib/floor-relay.mjs instead of agentwire:
//   node   node:http in, a bare spawn, node:http out: the least a Node relay can add.
//   stack  the same with the libraries the issues name for this path (express and the twilio SDK's
//          signature check, SQLite writes before the 200 and before the send, execa, the twilio
//          SDK's send), and nothing of agentwire's own.
// And the same one-at-a-time pairs for the added latency. When `stack` alone misses a target, no
// relay built on those libraries meets it on this machine.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bareRuns } from './lib/bare-spawn.mjs';
import { ACCOUNT, startFakeTwilio, TOKEN } from './lib/fake-twilio.mjs';
import { FAKE_CLI } from './lib/relay-proc.mjs';
import { pairedLatency, postRound } from './lib/rounds.mjs';
import { median, p99, procCpuMs, range } from './lib/stats.mjs';
import { closeAgent } from './lib/webhook.mjs';

const FLOOR = join(dirname(fileURLToPath(import.meta.url)), 'lib/floor-relay.mjs');
const N = Number(process.env.BENCH_N ?? 120);
const M = Number(process.env.BENCH_M ?? 12);
const C = 4;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SEQUENTIAL = Number(process.env.BENCH_SEQ ?? 150);

async function startFloor(mode, restUrl, dir) {
  const child = spawn(process.execPath, [FLOOR, mode, FAKE_CLI, restUrl, ACCOUNT, TOKEN, dir], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`floor relay (${mode}) exited with ${code}`)));
    child.stdout.once('data', (d) => resolve(Number(String(d).trim())));
  });
  return { url: `http://127.0.0.1:${port}/sms`, cpuMs: () => procCpuMs(child.pid), child };
}

async function stopFloor(floor) {
  if (floor.child.exitCode !== null || floor.child.signalCode !== null) return;
  const gone = new Promise((resolve) => floor.child.once('exit', resolve));
  floor.child.kill('SIGKILL');
  await gone;
}

async function round(floor, fake, tag) {
  const cpu0 = floor.cpuMs();
  const ms = await postRound(floor.url, fake, { n: N, chats: M, tag });
  return { ms, cpu: (floor.cpuMs() - cpu0) / N };
}

async function measure(mode, fake) {
  const dir = mkdtempSync(join(tmpdir(), 'aw-bench-floor-'));
  const floor = await startFloor(mode, fake.url, dir);
  try {
    await bareRuns(C * 2, C);
    await round(floor, fake, `${mode} warm`);
    const ratios = [];
    const cpu = [];
    for (let r = 0; r < ROUNDS; r++) {
      const bare = await bareRuns(N, C);
      const x = await round(floor, fake, `${mode} round${r}`);
      ratios.push(x.ms / bare);
      cpu.push(x.cpu);
    }
    const { added } = await pairedLatency(floor.url, fake, SEQUENTIAL, mode);
    return { ratio: median(ratios), range: range(ratios), cpu: median(cpu), added };
  } finally {
    await stopFloor(floor);
    rmSync(dir, { recursive: true, force: true });
  }
}

export default async function () {
  const fake = await startFakeTwilio();
  try {
    const rows = [];
    for (const [mode, what] of [
      ['node', 'node:http in, bare spawn, node:http out'],
      ['stack', 'express + signature check, SQLite, execa, twilio SDK send'],
    ]) {
      const m = await measure(mode, fake);
      rows.push(
        {
          metric: `floor relay (${what}): ratio over bare spawns, ${N} messages over ${M} chats, ${C} at once (median of ${ROUNDS}; range ${m.range})`,
          value: m.ratio,
          unit: '',
        },
        { metric: `floor relay (${mode}): its CPU per message (median round)`, value: m.cpu, unit: 'ms' },
        {
          metric: `floor relay (${mode}): added latency per message, one at a time (${SEQUENTIAL} pairs): median / p99`,
          value: `${median(m.added).toFixed(3)} / ${p99(m.added).toFixed(3)}`,
          unit: 'ms',
        },
      );
    }
    return rows;
  } finally {
    closeAgent();
    await fake.close();
  }
}

// The bwrap sandbox's cost per turn (agent.sandbox: bwrap), beside no sandbox, in one process:
// cold, a turn is one process of the e2e fake claude (node, reading the prompt, printing the
// captured stream-json), started with and without the sandbox, alternately; warm, the start of a
// live process (a node echo loop) and then one turn over its pipes. Wall time per turn (median),
// with the ratio sandboxed / bare. CPU: a sandboxed CLI's CPU never reaches this process's
// children's times (bwrap's init in the new PID namespace reaps it, and bwrap exits without reaping
// the init), so the sandbox's CPU is measured on its own: the same plan around `true`, with
// --as-pid-1 (no init: the process that makes the sandbox is the one bwrap reaps), beside `true`
// alone; a sandboxed turn costs the bare turn plus that. Skips, saying why, where bwrap cannot run.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const FAKE = join(ROOT, 'test/e2e/fixtures/fake-claude.mjs');
const COLD = Number(process.env.BENCH_SANDBOX_TURNS ?? 20);
const WARM_STARTS = 5;
const WARM_TURNS = 200;
const ECHO =
  "process.stdin.setEncoding('utf8');let b='';process.stdin.on('data',d=>{b+=d;let i;while((i=b.indexOf('\\n'))>=0){process.stdout.write('ok '+b.slice(0,i)+'\\n');b=b.slice(i+1);}})";

/** CPU ms of this process and of its reaped children so far. */
function cpuMs() {
  const own = process.cpuUsage();
  const f = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  // Fields 16 and 17 (cutime, cstime) are the 14th and 15th after the comm; clock ticks of 10 ms.
  const children = (Number(f[13]) + Number(f[14])) * 10;
  return (own.user + own.system) / 1000 + children;
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export default async function () {
  const { findBwrap, makeSandbox } = await import(join(ROOT, 'dist/agents/sandbox-plan.js'));
  const { spawnProcess } = await import(join(ROOT, 'dist/runner/spawn.js'));
  const { bwrapArgv } = await import(join(ROOT, 'dist/core/sandbox.js'));
  const { startStdioChild } = await import(join(ROOT, 'dist/runner/spawn-stdio.js'));
  const bwrap = findBwrap(process.env.PATH);
  const probe = bwrap && spawnSync(bwrap, ['--unshare-all', '--share-net', '--ro-bind', '/', '/', 'true']);
  if (!bwrap || probe.status !== 0)
    return [
      {
        metric: `skipped: ${bwrap ? `bwrap cannot make a sandbox here (${String(probe.stderr).trim()})` : 'bwrap is not installed'}`,
        value: '',
        unit: '',
      },
    ];

  const dir = mkdtempSync(join(tmpdir(), 'aw-bench-sandbox-'));
  try {
    const work = join(dir, 'work');
    mkdirSync(work);
    const env = { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, HOME: join(dir, 'home') };
    const made = makeSandbox('claude', {
      cwd: work,
      env,
      stateDir: join(dir, 'state', 'agents', 'claude'),
      command: [process.execPath],
      inboundMedia: join(dir, 'state', 'media', 'inbound'),
      hidden: [join(dir, 'state', 'agentwire.db')],
    });
    if (!made.ok) throw new Error(made.error);
    // The fake CLI lives in this repository: shown read-only, as a CLI's install is.
    const sandbox = { type: 'bwrap', plan: { ...made.plan, ro: [...made.plan.ro, ROOT] } };

    const cold = { bare: { wall: [], cpu: 0 }, bwrap: { wall: [], cpu: 0 } };
    const coldTurn = async (which) => {
      const c0 = cpuMs();
      const t0 = performance.now();
      const r = await spawnProcess({
        file: process.execPath,
        args: [FAKE, '-p', '--output-format', 'stream-json', '--verbose'],
        cwd: work,
        env,
        input: 'hello',
        timeoutMs: 30_000,
        ...(which === 'bwrap' ? { sandbox } : {}),
      });
      cold[which].wall.push(performance.now() - t0);
      cold[which].cpu += cpuMs() - c0;
      if (r.type !== 'exited' || r.exitCode !== 0)
        throw new Error(`cold ${which}: ${JSON.stringify(r).slice(0, 300)}`);
    };
    await coldTurn('bare');
    await coldTurn('bwrap');
    cold.bare = { wall: [], cpu: 0 };
    cold.bwrap = { wall: [], cpu: 0 };
    for (let i = 0; i < COLD; i++) {
      await coldTurn('bare');
      await coldTurn('bwrap');
    }

    // The sandbox's own CPU per start: the plan around `true` (as-pid-1) beside `true` alone.
    const setup = { bare: 0, bwrap: 0 };
    const made1 = bwrapArgv(sandbox.plan, { file: 'true', args: [] }, work);
    if (!made1.ok) throw new Error(made1.error);
    const alone = ['--as-pid-1', ...made1.launch.args];
    for (let i = 0; i < COLD; i++) {
      for (const which of ['bare', 'bwrap']) {
        const c0 = cpuMs();
        const r =
          which === 'bare'
            ? spawnSync('true', [], { env })
            : spawnSync(made1.launch.file, alone, { env, cwd: work });
        if (r.status !== 0) throw new Error(`setup ${which}: ${String(r.stderr)}`);
        setup[which] += cpuMs() - c0;
      }
    }

    const warm = { bare: { start: [], turn: [], cpu: 0 }, bwrap: { start: [], turn: [], cpu: 0 } };
    const warmRound = async (which) => {
      const t0 = performance.now();
      const s = await startStdioChild({
        file: process.execPath,
        args: ['-e', ECHO],
        cwd: work,
        env,
        ...(which === 'bwrap' ? { sandbox } : {}),
      });
      if (s.type !== 'started') throw new Error(`warm ${which}: ${s.message}`);
      const lines = [];
      let buf = '';
      let wake = () => {};
      s.child.stdout.setEncoding('utf8');
      s.child.stdout.on('data', (d) => {
        buf += d;
        for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
          lines.push(buf.slice(0, i));
          buf = buf.slice(i + 1);
        }
        wake();
      });
      const turn = async (n) => {
        s.child.stdin.write(`${n}\n`);
        while (!lines.includes(`ok ${n}`)) await new Promise((r) => (wake = r));
      };
      await turn(0);
      warm[which].start.push(performance.now() - t0);
      const c0 = process.cpuUsage();
      for (let n = 1; n <= WARM_TURNS; n++) {
        const t = performance.now();
        await turn(n);
        warm[which].turn.push(performance.now() - t);
      }
      const c = process.cpuUsage(c0);
      warm[which].cpu += (c.user + c.system) / 1000;
      await s.child.stop(1000);
    };
    for (let i = 0; i < WARM_STARTS; i++) {
      await warmRound('bare');
      await warmRound('bwrap');
    }

    const row = (metric, value, unit) => ({ metric, value, unit });
    const coldBare = median(cold.bare.wall);
    const coldBwrap = median(cold.bwrap.wall);
    const cpuBare = cold.bare.cpu / COLD;
    const setupCpu = (setup.bwrap - setup.bare) / COLD;
    const cpuBwrap = cpuBare + setupCpu;
    const startBare = median(warm.bare.start);
    const startBwrap = median(warm.bwrap.start);
    const turnBare = median(warm.bare.turn);
    const turnBwrap = median(warm.bwrap.turn);
    const wcpuBare = warm.bare.cpu / (WARM_STARTS * WARM_TURNS);
    const wcpuBwrap = warm.bwrap.cpu / (WARM_STARTS * WARM_TURNS);
    return [
      row('cold turn, no sandbox (median wall)', coldBare, 'ms'),
      row('cold turn, bwrap (median wall)', coldBwrap, 'ms'),
      row('cold turn wall, bwrap / none', coldBwrap / coldBare, 'x'),
      row('cold turn CPU, no sandbox', cpuBare, 'ms'),
      row('sandbox setup CPU per start (bwrap around true, less true)', setupCpu, 'ms'),
      row('cold turn CPU, bwrap / none', cpuBwrap / cpuBare, 'x'),
      row('warm start, no sandbox (median wall)', startBare, 'ms'),
      row('warm start, bwrap (median wall)', startBwrap, 'ms'),
      row('warm start wall, bwrap / none', startBwrap / startBare, 'x'),
      row('warm turn, no sandbox (median wall)', turnBare, 'ms'),
      row('warm turn, bwrap (median wall)', turnBwrap, 'ms'),
      row('warm turn wall, bwrap / none', turnBwrap / turnBare, 'x'),
      // Between start and stop the relay's side only: the sandboxed child's CPU is not counted (above).
      row('warm turn relay CPU, bwrap / none', wcpuBwrap / wcpuBare, 'x'),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// Warm agents, what a live process saves over one per turn: for each of the five real CLIs, 20
// turns in one chat through the relay cold (one process per turn) and then warm (one live
// process), in one run, against the real-CLI suite's fake model (it answers at once, so what is
// left is the CLI's and the relay's own cost).
// Prints, per CLI: message in to reply out (median, p90), relay + CLI CPU per turn, the RSS of the
// idle warm process group, and the ratios warm / cold against the targets (time <= 0.15, CPU <= 0.25).
// Runs only where the real CLIs can run isolated: the pinned CLIs installed (`npm run test:clis`
// installs them into AGENTWIRE_CLIS_DIR, default ~/.cache/agentwire-clis) and a loopback-only network
// namespace (test/clis/netns.sh); otherwise one row says why it skipped. Heavy: nice'd, one CLI at a
// time. BENCH_WARM_CLIS=claude,pi picks CLIs; BENCH_WARM_TURNS changes the 20.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { PINS } from '../test/clis/install/pins.mjs';
import { clisDir, inNamespace, noNamespace, notInstalled, ROOT } from './lib/real-clis.mjs';

/** Why the real CLIs cannot run here, or undefined when they can. */
function cannotRun(dir) {
  for (const { cli } of PINS) {
    const why = notInstalled(cli, dir);
    if (why) return why;
  }
  return noNamespace();
}

export default async function () {
  const dir = clisDir();
  const why = cannotRun(dir);
  if (why) return [{ metric: `skipped: ${why}`, value: '', unit: '' }];
  const run = [
    process.execPath,
    '--import',
    join(ROOT, 'bench/lib/ts-hook.mjs'),
    join(ROOT, 'bench/lib/warm-run.mjs'),
  ];
  const argv = inNamespace(run);
  const child = spawn('nice', ['-n', '10', ...argv], {
    cwd: ROOT,
    env: { ...process.env, AGENTWIRE_CLIS_DIR: dir },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  const code = await new Promise((resolve) => child.on('close', resolve));
  const last = out.trim().split('\n').at(-1) ?? '';
  if (code !== 0 || !last.startsWith('[')) throw new Error(`warm bench failed (exit ${code})`);
  return JSON.parse(last);
}

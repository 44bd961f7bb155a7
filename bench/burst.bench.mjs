// Warm agents under a burst: S senders × M messages each (10 × 4 and 20 × 5), a sender's messages
// 50 ms apart and all senders at once, as signed Twilio webhooks into the built relay (4 run slots,
// the default warm pool), with the real claude and codex CLIs against the real-CLI suite's fake
// model (it answers at once), warm and cold, `whileBusy` collect and followup. Per relay: wall time
// to the last reply, ack median / p99, process starts, turns per chat, agent CPU per turn and per
// message against two warm baselines in the same run (one chat's messages one at a time, and one
// chat of the burst's own shape: the burst with one sender), relay CPU per turn, peak RSS of the
// relay's process tree, the load average.
// Long (10-30 minutes), so it runs only when asked: `npm run bench -- --burst`, BENCH_BURST=1, or
// by name (`node bench/run.mjs burst`). Only inside the loopback-only namespace (test/clis/netns.sh,
// entered by the bench itself) and with the pinned CLIs installed; otherwise one row says why not.
// BENCH_BURST_CLIS, _SIZES (10x4,20x5), _MODES (warm,cold), _QUEUES (collect,followup),
// _BASE_TURNS (5) and _LIMIT_S (600, per relay) pick what runs.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { clisDir, inNamespace, noNamespace, notInstalled, ROOT } from './lib/real-clis.mjs';

export default async function () {
  if (process.env.BENCH_BURST !== '1')
    return [
      {
        metric: 'skipped: the real-CLI burst takes 10-30 minutes; `npm run bench -- --burst` runs it',
        value: '',
        unit: '',
      },
    ];
  const dir = clisDir();
  const wanted = (process.env.BENCH_BURST_CLIS ?? 'claude,codex').split(',').filter(Boolean);
  const rows = [];
  const clis = [];
  for (const cli of wanted) {
    const why = notInstalled(cli, dir);
    if (why) rows.push({ metric: `${cli}: skipped: ${why}`, value: '', unit: '' });
    else clis.push(cli);
  }
  if (clis.length === 0) return rows;
  const why = noNamespace();
  if (why) return [...rows, { metric: `skipped: ${why}`, value: '', unit: '' }];
  const argv = inNamespace([
    process.execPath,
    '--import',
    join(ROOT, 'bench/lib/ts-hook.mjs'),
    join(ROOT, 'bench/lib/burst-run.mjs'),
  ]);
  const child = spawn(argv[0], argv.slice(1), {
    cwd: ROOT,
    env: { ...process.env, AGENTWIRE_CLIS_DIR: dir, BENCH_BURST_CLIS: clis.join(',') },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  const code = await new Promise((resolve) => child.on('close', resolve));
  const last = out.trim().split('\n').at(-1) ?? '';
  if (code !== 0 || !last.startsWith('[')) throw new Error(`burst bench failed (exit ${code})`);
  return [...rows, ...JSON.parse(last)];
}

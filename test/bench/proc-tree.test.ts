// The burst bench's /proc sampler: it must count the marked children of a process once each, leave
// the unmarked ones out, and see the tree's memory. Real child processes of this one.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { sampleTree } from '../../bench/lib/proc-tree.mjs';

const live: ChildProcess[] = [];
afterEach(async () => {
  for (const c of live.splice(0)) {
    if (c.exitCode !== null || c.signalCode !== null) continue;
    const gone = once(c, 'exit');
    c.kill('SIGKILL');
    await gone;
  }
});

/** A node child that lives until its stdin closes, with `env` as its whole environment. */
async function child(env: Record<string, string>): Promise<ChildProcess> {
  const c = spawn(process.execPath, ['-e', 'process.stdin.resume()'], {
    env,
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  live.push(c);
  await once(c, 'spawn');
  return c;
}

describe.runIf(process.platform === 'linux')('sampleTree', () => {
  it('counts the marked children once, not the others, and sums the memory of the tree', async () => {
    const tree = sampleTree(process.pid, 'AW_PROC_TREE_MARK=yes', 10);
    await child({ AW_PROC_TREE_MARK: 'yes' });
    await child({ AW_PROC_TREE_MARK: 'yes' });
    await child({ AW_PROC_TREE_MARK: 'no' });
    const seen = tree.stop();
    expect(seen.starts).toBe(2);
    expect(seen.peakAgents).toBe(2);
    // This process alone holds tens of MiB; with three node children the tree holds more.
    expect(seen.peakRssKb).toBeGreaterThan(3 * 20 * 1024);
    expect(seen.rootCpuMs).toBeGreaterThan(0);
    expect(seen.firstRootCpuMs).toBeLessThanOrEqual(seen.rootCpuMs);
  });

  it("counts the marked children of an unmarked child (the launcher's), not deeper ones", async () => {
    const tree = sampleTree(process.pid, 'AW_PROC_TREE_MARK=yes', 10);
    // A launcher stand-in: unmarked, it starts one marked child, which starts a marked child of its own.
    const script = `
      const { spawn } = require('node:child_process');
      const grand = (env) => spawn(process.execPath, ['-e', process.argv[1]], { env, stdio: ['pipe', 'inherit', 'ignore'] });
      const agent = grand({ AW_PROC_TREE_MARK: 'yes', AW_DEPTH: '1' });
      process.stdin.resume();
    `;
    const inner = `
      if (process.env.AW_DEPTH === '1') {
        const { spawn } = require('node:child_process');
        const c = spawn(process.execPath, ['-e', 'process.stdin.resume()'], { env: { AW_PROC_TREE_MARK: 'yes' }, stdio: ['pipe', 'ignore', 'ignore'] });
        c.on('spawn', () => console.log(process.pid + ' ' + c.pid));
      }
      process.stdin.resume();
    `;
    const launcher = spawn(process.execPath, ['-e', script, inner], {
      env: {},
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    live.push(launcher);
    const [line] = (await once(launcher.stdout, 'data')) as [Buffer];
    const pids = line.toString().trim().split(' ').map(Number);
    const seen = tree.stop();
    for (const pid of pids) process.kill(pid, 'SIGKILL');
    expect(seen.starts).toBe(1);
    expect(seen.peakAgents).toBe(1);
  });
});

// spawnProcess given a launcher (src/runner/launcher/spawn-launched.ts): the program really starts
// from the launcher, and what only a launcher can do (die mid-run, fail to start, be slow to say
// the pid) ends the run as a value with nothing left running. spawn.test.ts runs the contract's
// cases both ways; these are the launcher's own.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findMarked } from '../../src/runner/run-mark.js';
import { spawnProcess } from '../../src/runner/spawn.js';
import { alive, env, launcherFixture, node, waitFor } from '../helpers/launcher.js';

const { dir, strays, newLauncher, cleanup } = launcherFixture('aw-launcher-spawn-');
afterAll(cleanup);

describe('spawnProcess through a launcher', () => {
  it('starts the program from the launcher, not from this process', async () => {
    const l = newLauncher();
    const r = await spawnProcess({ file: node, args: ['-e', 'console.log(process.ppid)'], env, launcher: l });
    expect(r).toMatchObject({ type: 'exited', exitCode: 0 });
    if (r.type !== 'exited') return;
    expect(Number(r.stdout.trim())).toBe(l.pid());
    expect(Number(r.stdout.trim())).not.toBe(process.pid);
  });

  it('feeds stdin and keeps every line in order', async () => {
    const l = newLauncher();
    const input = Array.from({ length: 20000 }, (_, i) => `line ${i}`).join('\n');
    const seen: string[] = [];
    const r = await spawnProcess({
      file: node,
      args: ['-e', 'process.stdin.pipe(process.stdout)'],
      env,
      input,
      launcher: l,
      onStdoutLine: (line) => seen.push(line),
    });
    expect(r).toMatchObject({ type: 'exited', exitCode: 0 });
    expect(seen.join('\n')).toBe(input);
  });

  it('a launcher that dies mid-run ends the run as spawn_failed, and kills its group and marked processes', async () => {
    const l = newLauncher();
    // The helper leaves the group (setsid): only the run's mark finds it.
    const daemon = join(dir, 'daemon.js');
    writeFileSync(daemon, 'process.on("SIGTERM", () => {}); setInterval(() => {}, 1000);');
    const parent = join(dir, 'parent.js');
    writeFileSync(
      parent,
      `const { spawn } = require('node:child_process');
       const d = spawn(process.execPath, [${JSON.stringify(daemon)}], { stdio: 'ignore', detached: true });
       d.unref();
       console.log("daemon " + d.pid);
       setInterval(() => {}, 1000);`,
    );
    let daemonPid = 0;
    let mark = '';
    const running = spawnProcess({
      file: node,
      args: [parent],
      env,
      launcher: l,
      onStdoutLine: (line) => {
        const m = /^daemon (\d+)$/.exec(line);
        if (!m) return;
        daemonPid = Number(m[1]);
        mark =
          /AGENTWIRE_RUN=([0-9a-f-]+)/.exec(readFileSync(`/proc/${daemonPid}/environ`, 'latin1'))?.[1] ?? '';
        process.kill(l.pid() as number, 'SIGKILL');
      },
    });
    const r = await running;
    strays.push(daemonPid);
    expect(r.type).toBe('spawn_failed');
    if (r.type === 'spawn_failed') expect(r.message).toMatch(/^launcher: the launcher exited \(SIGKILL\)/);
    expect(mark).not.toBe('');
    expect(await waitFor(() => !alive(daemonPid))).toBe(true);
    // A process killed a moment ago may still be on its way out: wait for the mark to be gone.
    expect(await waitFor(() => findMarked(mark).length === 0)).toBe(true);
    // The next run starts a new launcher.
    expect(await spawnProcess({ file: '/bin/true', args: [], env, launcher: l })).toMatchObject({
      type: 'exited',
      exitCode: 0,
    });
  });

  it('a relay killed with SIGKILL: its launcher kills the run, and what the run moved out of its group', async () => {
    const daemon = join(dir, 'daemon2.js');
    writeFileSync(daemon, 'process.on("SIGTERM", () => {}); setInterval(() => {}, 1000);');
    const parent = join(dir, 'parent2.js');
    writeFileSync(
      parent,
      `const { spawn } = require('node:child_process');
       const d = spawn(process.execPath, [${JSON.stringify(daemon)}], { stdio: 'ignore', detached: true });
       d.unref();
       console.log("daemon " + d.pid);
       setInterval(() => {}, 1000);`,
    );
    const dist = join(import.meta.dirname, '../../dist/runner');
    const relayScript = join(dir, 'relay.mjs');
    writeFileSync(
      relayScript,
      `import { startLauncher } from ${JSON.stringify(join(dist, 'launcher/client.js'))};
       import { spawnProcess } from ${JSON.stringify(join(dist, 'spawn.js'))};
       const launcher = startLauncher();
       void spawnProcess({ file: process.execPath, args: [${JSON.stringify(parent)}], env: { PATH: '/usr/bin:/bin' }, launcher, onStdoutLine: (l) => console.log(l) });
       setInterval(() => {}, 1000);`,
    );
    const relay = spawn(node, [relayScript], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    relay.stdout.on('data', (c: Buffer) => {
      out += c.toString();
    });
    const gone = new Promise((r) => relay.once('exit', r));
    const daemonPid = () => Number(/daemon (\d+)/.exec(out)?.[1] ?? 0);
    expect(await waitFor(() => daemonPid() > 0)).toBe(true);
    strays.push(daemonPid());
    expect(alive(daemonPid())).toBe(true);
    relay.kill('SIGKILL');
    await gone;
    expect(await waitFor(() => !alive(daemonPid()))).toBe(true);
  });

  it('a launcher that cannot start is a spawn_failed value, each time, and nothing waits forever', async () => {
    const l = newLauncher({ script: join(dir, 'no-such-launcher.js') });
    for (let i = 0; i < 2; i++) {
      const r = await spawnProcess({ file: '/bin/true', args: [], env, launcher: l });
      expect(r).toMatchObject({ type: 'spawn_failed' });
      if (r.type === 'spawn_failed') expect(r.message).toMatch(/^launcher: /);
    }
  });

  it('an abort before the launcher named the pid still stops the program', async () => {
    const l = newLauncher();
    const ac = new AbortController();
    const running = spawnProcess({
      file: node,
      args: ['-e', 'console.log(process.pid); setInterval(() => {}, 1000)'],
      env,
      launcher: l,
      signal: ac.signal,
      killGraceMs: 200,
    });
    // Aborted in the same turn: the launcher cannot have answered yet.
    ac.abort();
    const r = await running;
    expect(r.type).toBe('aborted');
    // It did start (the request was on its way), and the stop reached it once its pid was known.
    if (r.type === 'aborted') expect(r.signal).toBe('SIGTERM');
  });
});

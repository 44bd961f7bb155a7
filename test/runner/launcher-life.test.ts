// The launcher's life (src/runner/launcher/): one killed mid-run ends its open handles with an
// error and kills their groups, the next launch forks a new one, stop() ends it and what it runs,
// the relay going (even SIGKILL) takes it along, one that cannot start is retried later and later,
// and an idle one never keeps the relay alive. Real processes throughout.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { LaunchExit } from '../../src/runner/launcher/client.js';
import { alive, env, launcherFixture, node, run, started, waitFor, waitGone } from '../helpers/launcher.js';

const { dir, strays, script, newLauncher, cleanup } = launcherFixture('aw-launcher-life-');
afterAll(cleanup);

const l = newLauncher();

describe('launcher life', () => {
  it('a launcher killed mid-run: open handles end with an error, their groups die, the next launch starts a new one', async () => {
    const own = newLauncher();
    const a = started(await own.launch({ file: node, args: ['-e', 'setInterval(() => {}, 1000)'], env }));
    const b = started(await own.launch({ file: node, args: ['-e', 'setInterval(() => {}, 1000)'], env }));
    strays.push(a.pid, b.pid);
    const first = own.pid() as number;
    process.kill(first, 'SIGKILL');
    const ends: LaunchExit[] = await Promise.all([a.exit, a.closed, b.closed]);
    for (const e of ends) expect(e).toMatchObject({ type: 'launcher_died' });
    expect(await waitGone(a.pid)).toBe(true);
    expect(await waitGone(b.pid)).toBe(true);
    const c = await run(own, { file: node, args: ['-e', 'console.log("again")'] });
    expect(await started(c.start).closed).toEqual({ type: 'exited', code: 0, signal: null });
    expect(c.stdout().toString()).toBe('again\n');
    expect(own.pid()).not.toBe(first);
    expect(alive(first)).toBe(false);
  });

  it('each death is reported once, a stop is not a death, and nothing starts after stop()', async () => {
    const deaths: string[] = [];
    const own = newLauncher({ onDied: (m) => deaths.push(m) });
    const a = started(await own.launch({ file: node, args: ['-e', 'setInterval(() => {}, 1000)'], env }));
    strays.push(a.pid);
    process.kill(own.pid() as number, 'SIGKILL');
    await a.closed;
    expect(deaths).toEqual(['the launcher exited (SIGKILL)']);
    const b = await run(own, { file: node, args: ['-e', '0'] });
    await started(b.start).closed;
    process.kill(own.pid() as number, 'SIGKILL');
    expect(await waitFor(() => deaths.length === 2)).toBe(true);
    await started((await run(own, { file: node, args: ['-e', '0'] })).start).closed;
    const last = own.pid() as number;
    await own.stop();
    expect(alive(last)).toBe(false);
    expect(deaths).toHaveLength(2);
    // A launch after stop() would fork a launcher that outlives the relay's shutdown.
    expect(await own.launch({ file: node, args: ['-e', '0'], env })).toMatchObject({
      type: 'launcher_failed',
    });
    expect(own.pid()).toBeUndefined();
  });

  it('stop ends the launcher and what it still runs; nothing is left', async () => {
    const own = newLauncher();
    const h = started(await own.launch({ file: node, args: ['-e', 'setInterval(() => {}, 1000)'], env }));
    strays.push(h.pid);
    const lp = own.pid() as number;
    await own.stop();
    expect(await h.closed).toMatchObject({ type: 'launcher_died' });
    expect(await waitGone(h.pid)).toBe(true);
    expect(alive(lp)).toBe(false);
  });

  it('an idle launcher does not keep the relay alive, and stop() resolves before the relay ends', async () => {
    const client = join(import.meta.dirname, '../../dist/runner/launcher/client.js');
    const idle = script(
      'idle.mjs',
      `import { startLauncher } from ${JSON.stringify(client)}; startLauncher();`,
    );
    const stopping = script(
      'stopping.mjs',
      `import { startLauncher } from ${JSON.stringify(client)};
       const l = startLauncher();
       const s = await l.launch({ file: '/bin/true', args: [], env: {} });
       console.log(s.type, JSON.stringify(await s.handle.closed));
       const pid = l.pid();
       await l.stop();
       console.log('stopped', pid);`,
    );
    const c1 = await run(l, { file: node, args: [idle] });
    expect(await started(c1.start).closed).toEqual({ type: 'exited', code: 0, signal: null });
    const c2 = await run(l, { file: node, args: [stopping] });
    expect(await started(c2.start).closed).toEqual({ type: 'exited', code: 0, signal: null });
    const lines = c2.stdout().toString().trim().split('\n');
    expect(lines[0]).toBe('started {"type":"exited","code":0,"signal":null}');
    const stoppedPid = Number(/^stopped (\d+)$/.exec(lines[1] ?? '')?.[1]);
    expect(stoppedPid).toBeGreaterThan(0);
    expect(alive(stoppedPid)).toBe(false);
  });

  it('a relay killed with SIGKILL takes its launcher and the runs it had along', async () => {
    const client = join(import.meta.dirname, '../../dist/runner/launcher/client.js');
    const relay = script(
      'relay.mjs',
      `import { startLauncher } from ${JSON.stringify(client)};
       const l = startLauncher();
       const s = await l.launch({ file: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'], env: {} });
       console.log(l.pid(), s.handle.pid);
       setInterval(() => {}, 1000);`,
    );
    const c = await run(l, { file: node, args: [relay] });
    const h = started(c.start);
    strays.push(h.pid);
    const pids = () => (/^(\d+) (\d+)\n/.exec(c.stdout().toString()) ?? []).slice(1).map(Number);
    expect(await waitFor(() => pids().length === 2)).toBe(true);
    const [launcherPid, runPid] = pids() as [number, number];
    strays.push(launcherPid, runPid);
    expect(alive(launcherPid) && alive(runPid)).toBe(true);
    process.kill(h.pid, 'SIGKILL');
    expect(await h.closed).toEqual({ type: 'exited', code: null, signal: 'SIGKILL' });
    expect(await waitGone(launcherPid)).toBe(true);
    expect(await waitGone(runPid)).toBe(true);
  });

  it('a launcher that cannot start is not forked again at once, and is tried again later and later', async () => {
    // A launcher script that notes each start's time and dies before it is ready.
    const log = join(dir, 'starts.log');
    const bad = script(
      'bad-launcher.mjs',
      `import { appendFileSync } from 'node:fs'; appendFileSync(${JSON.stringify(log)}, Date.now() + '\\n'); process.exit(1);`,
    );
    const starts = () =>
      existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).map(Number) : [];
    const slow = newLauncher({ script: bad, retryMs: { first: 60_000, last: 60_000 } });
    expect(await slow.launch({ file: '/bin/true', args: [], env })).toMatchObject({
      type: 'launcher_failed',
    });
    expect(starts()).toHaveLength(1);
    const again = await slow.launch({ file: '/bin/true', args: [], env });
    expect(again).toMatchObject({ type: 'launcher_failed' });
    expect(again.type === 'launcher_failed' && again.message).toMatch(/next try in \d+ ms/);
    expect(starts()).toHaveLength(1);

    rmSync(log);
    const quick = newLauncher({ script: bad, retryMs: { first: 100, last: 1000 } });
    for (const end = Date.now() + 10_000; starts().length < 3 && Date.now() < end; ) {
      expect(await quick.launch({ file: '/bin/true', args: [], env })).toMatchObject({
        type: 'launcher_failed',
      });
      await new Promise((r) => setTimeout(r, 10));
    }
    const [a = 0, b = 0, c = 0] = starts();
    expect(starts()).toHaveLength(3);
    // 100 ms after the first failed start, 200 after the second (from when each was seen failing).
    expect(b - a).toBeGreaterThanOrEqual(100);
    expect(c - b).toBeGreaterThanOrEqual(200);
  });

  it('the compiled launcher (dist/) works the same', async () => {
    const compiled = join(import.meta.dirname, '../../dist/runner/launcher/launcher-process.js');
    expect(existsSync(compiled)).toBe(true);
    const own = newLauncher({ script: compiled });
    const c = await run(own, { file: node, args: ['-e', 'process.stdout.write("ok")'] });
    expect(await started(c.start).closed).toEqual({ type: 'exited', code: 0, signal: null });
    expect(c.stdout().toString()).toBe('ok');
    await own.stop();
  });
});

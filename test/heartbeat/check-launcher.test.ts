// A heartbeat's pre-check started from the relay's launcher (agents.launcher), as the agents are:
// through the relay's scheduler wiring the check's parent is the launcher, not this process; a
// launcher killed mid-check makes the check `failed` (no hang) and the next one starts from a new
// launcher. Real child processes (small node scripts) and a real launcher; no store.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load.js';
import { resolvePaths } from '../../src/config/paths.js';
import { createRunCheck } from '../../src/heartbeat/run-check.js';
import { createRelayScheduler } from '../../src/heartbeat/wiring.js';
import { startLauncher } from '../../src/runner/launcher/client.js';
import { alive, waitFor } from '../helpers/launcher.js';
import { parentOf, sleeperArgv, sleeperPid } from '../support/procs.js';
import { captureLog, FakeClock, FakeRunner, tempDir } from './helpers.js';

const launcher = startLauncher();
const tmp = tempDir();
afterAll(async () => {
  await launcher.stop();
  tmp.cleanup();
});

/** A check that writes its parent's pid to `file`, then exits 1 (nothing to wake the agent for). */
const writesParent = (file: string) => [
  process.execPath,
  '-e',
  'require("node:fs").writeFileSync(process.argv[1], String(process.ppid)); process.exit(1)',
  file,
];

describe.runIf(process.platform === 'linux')('heartbeat pre-checks from the launcher', () => {
  it("the relay scheduler's check starts from the launcher", async () => {
    const file = join(tmp.dir, 'check-parent');
    const parsed = parseConfigText(
      JSON.stringify({
        agent: { cwd: tmp.dir },
        heartbeat: { target: 'whatsapp:+15551234567', check: writesParent(file) },
      }),
      'c.json5',
      {},
    );
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
    const runner = new FakeRunner(new FakeClock(0));
    runner.sessions.add('whatsapp:+15551234567');
    const { methods, scheduler } = createRelayScheduler({
      config: parsed.config,
      paths: resolvePaths({ AGENTWIRE_HOME: tmp.dir }),
      env: process.env,
      log: captureLog().log,
      states: { save: async () => undefined },
      stored: new Map(),
      runner,
      defaultTarget: () => undefined,
      launcher,
    });
    // A check that exits 1 leaves the agent asleep.
    expect(await methods.heartbeat?.({})).toMatchObject({ type: 'check_quiet' });
    scheduler.stop();
    expect(existsSync(file)).toBe(true);
    expect(Number(readFileSync(file, 'utf8'))).toBe(launcher.pid());
    expect(launcher.pid()).not.toBe(process.pid);
    expect(runner.runs).toHaveLength(0);
  });

  it('a launcher killed mid-check: the check fails with a reason, the next one runs from a new launcher', async () => {
    const own = startLauncher();
    try {
      const run = createRunCheck({ env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, launcher: own });
      const file = join(tmp.dir, 'sleeper');
      const pending = run(sleeperArgv(file), 60_000);
      const check = await sleeperPid(file);
      const first = own.pid() as number;
      expect(parentOf(check)).toBe(first);
      process.kill(first, 'SIGKILL');
      const r = await pending;
      expect(r).toMatchObject({ type: 'failed' });
      expect(r.type === 'failed' && r.message).toMatch(/^launcher: /);
      expect(await waitFor(() => !alive(check), 10_000)).toBe(true);

      const again = join(tmp.dir, 'again');
      expect(await run(writesParent(again), 30_000)).toMatchObject({ type: 'ok', exitCode: 1 });
      const second = Number(readFileSync(again, 'utf8'));
      expect(second).toBe(own.pid());
      expect(second).not.toBe(first);
    } finally {
      await own.stop();
    }
  });
});

// Custom commands' scripts (`commands.<name>.run`, queue/host-scripts.ts) started from the relay's
// launcher (agents.launcher), as the agents are: the script's parent is the launcher, not this
// process; stopping the scripts at shutdown still stops one started there (its group, from here by
// pid). Real child processes (small node scripts) and a real launcher; no store.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HostScripts } from '../../src/queue/host-scripts.js';
import { startLauncher } from '../../src/runner/launcher/client.js';
import { alive, waitFor } from '../helpers/launcher.js';
import { parentOf, sleeperArgv, sleeperPid } from '../support/procs.js';

const launcher = startLauncher();
const dir = mkdtempSync(join(tmpdir(), 'aw-host-scripts-'));
afterAll(async () => {
  await launcher.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe.runIf(process.platform === 'linux')("custom commands' scripts from the launcher", () => {
  it("a script's parent is the launcher, and its output comes back", async () => {
    const scripts = new HostScripts(join(dir, 'work'), launcher);
    const r = await scripts.runner()(
      [process.execPath, '-e', 'process.stdout.write(String(process.ppid))'],
      30_000,
    );
    expect(r).toEqual({ type: 'ok', exitCode: 0, stdout: String(launcher.pid()), truncated: false });
    expect(launcher.pid()).not.toBe(process.pid);
    await scripts.stop();
  });

  it('stop() stops a script running from the launcher and waits for it', async () => {
    const scripts = new HostScripts(join(dir, 'work'), launcher);
    const file = join(dir, 'sleeper');
    const pending = scripts.runner()(sleeperArgv(file), 60_000);
    const script = await sleeperPid(file);
    expect(parentOf(script)).toBe(launcher.pid());
    await scripts.stop();
    expect(await pending).toEqual({ type: 'failed', message: 'it was stopped' });
    expect(await waitFor(() => !alive(script), 10_000)).toBe(true);
  });
});

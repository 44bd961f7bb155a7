// A sandboxed warm process started from the launcher (agents.launcher): bwrap is the launcher's
// child, not the relay's, and the fourth pipe on which the sandbox says it is made crosses the
// launcher's channel, so a sandbox bwrap cannot make still ends the start with bwrap's own line.
// Skips, saying why, where bwrap cannot run.
import { randomInt } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Launcher, LaunchRequest } from '../../src/runner/launcher/client.js';
import { startStdioChild } from '../../src/runner/spawn-stdio.js';
import { bwrapMissing, running, sandboxIn, unmakeable } from '../helpers/bwrap.js';
import { launcherFixture, waitFor } from '../helpers/launcher.js';
import { tempDir } from '../helpers/tmp.js';
import { launchersOf, parentOf } from '../support/procs.js';

const missing = bwrapMissing();
const { strays, newLauncher, cleanup } = launcherFixture('aw-sb-launched-');
afterAll(cleanup);

/** The launcher, and every request it was asked to start. */
function spied(): { launcher: Launcher; asked: LaunchRequest[] } {
  const real = newLauncher();
  const asked: LaunchRequest[] = [];
  return {
    asked,
    launcher: {
      launch: (req) => {
        asked.push(req);
        return real.launch(req);
      },
      pid: () => real.pid(),
      stop: () => real.stop(),
    },
  };
}

describe.skipIf(missing)(
  `a sandboxed warm start with a launcher${missing ? ` (skipped: ${missing})` : ''}`,
  () => {
    it("starts bwrap from the launcher, answers on its pipes and is stopped with what's inside", async () => {
      const dir = tempDir('aw-sb-launched-');
      const { sandbox, env } = sandboxIn(dir);
      const { launcher, asked } = spied();
      const needle = `5000.${randomInt(1e9)}`;
      const s = await startStdioChild({
        file: 'sh',
        args: ['-c', `read line; echo "got $line"; sleep ${needle}`],
        cwd: join(dir, 'work'),
        env,
        sandbox,
        launcher,
      });
      if (s.type !== 'started') throw new Error(JSON.stringify(s));
      strays.push(s.child.pid);
      expect(asked).toHaveLength(1);
      expect(asked[0]?.fd3).toBe(true);
      expect(parentOf(s.child.pid)).toBe(launcher.pid());
      expect(launchersOf(process.pid)).toContain(launcher.pid());
      let out = '';
      s.child.stdout.setEncoding('utf8');
      s.child.stdout.on('data', (d: string) => {
        out += d;
      });
      s.child.stdin.write('hello\n');
      expect(await waitFor(() => out.includes('got hello') && running(needle).length === 1, 10_000)).toBe(
        true,
      );
      await s.child.stop(500);
      expect(await waitFor(() => running(needle).length === 0)).toBe(true);
    });

    it("a sandbox bwrap cannot make: bwrap's own line, marked, through the launcher; nothing ran", async () => {
      const dir = tempDir('aw-sb-launched-');
      const { sandbox, env } = sandboxIn(dir);
      const broken = unmakeable(sandbox, join(dir, 'gone'));
      const { launcher, asked } = spied();
      const warm = await startStdioChild({
        file: 'sh',
        args: ['-c', `touch ${join(dir, 'work', 'ran')}`],
        cwd: join(dir, 'work'),
        env,
        sandbox: broken,
        launcher,
      });
      expect(asked).toHaveLength(1);
      expect(warm).toMatchObject({ type: 'spawn_failed', sandbox: true });
      expect(warm.type === 'spawn_failed' && warm.message).toMatch(/^bwrap: Can't find source path .*gone/);
      expect(readdirSync(join(dir, 'work'))).not.toContain('ran');
    });
  },
);

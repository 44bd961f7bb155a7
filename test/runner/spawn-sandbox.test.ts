// The spawn helpers with a sandbox: a hanging sandboxed CLI is killed at its timeout with everything
// it started (its background child included), a warm one is stopped the same way, and a sandbox
// that cannot be made ends the start with bwrap's own reason, marked as a sandbox failure, never
// by running the program unsandboxed. Skips, saying why, where bwrap cannot run.
import { randomInt } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/core/sandbox.js';
import { startLauncher } from '../../src/runner/launcher/client.js';
import { type SpawnOptions, spawnProcess as spawnDirect } from '../../src/runner/spawn.js';
import { startStdioChild } from '../../src/runner/spawn-stdio.js';
import { bwrapMissing, killRunning, running, sandboxIn, unmakeable } from '../helpers/bwrap.js';
import { tempDir } from '../helpers/tmp.js';

const missing = bwrapMissing();

// The cold cases run both ways a program can start: here (execa), and from a launcher process.
const launcher = startLauncher();
afterAll(() => launcher.stop());
const WAYS = ['here', 'from a launcher'] as const;
const spawnBy = (way: (typeof WAYS)[number]) => (o: SpawnOptions) =>
  spawnDirect(way === 'here' ? o : { ...o, launcher });
const spawnProcess = spawnBy('here');

async function until(ok: () => boolean, ms = 10_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (ok()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return ok();
}

/** A CLI that starts a background child and then hangs, both with a unique command line. */
function hanging(): { args: string[]; child: string; main: string } {
  const n = randomInt(1e9);
  const child = `5000.${n}1`;
  const main = `5000.${n}2`;
  started.push(child, main);
  return { args: ['-c', `sleep ${child} & sleep ${main}`], child, main };
}

// A failing test must not leave its sleepers behind.
const started: string[] = [];
afterEach(() => killRunning(started.splice(0)));

describe.skipIf(missing)(
  `the spawn helpers with a bwrap sandbox${missing ? ` (skipped: ${missing})` : ''}`,
  () => {
    it.each(WAYS)(
      'cold, started %s: a hanging CLI is killed at its timeout, its background child with it',
      async (way) => {
        const spawnProcess = spawnBy(way);
        const dir = tempDir('aw-sbspawn-');
        const { sandbox, env } = sandboxIn(dir);
        const h = hanging();
        const run = spawnProcess({
          file: 'sh',
          args: h.args,
          cwd: join(dir, 'work'),
          env,
          sandbox,
          timeoutMs: 1500,
          killGraceMs: 500,
        });
        // Both are running inside before the timeout.
        expect(await until(() => running(h.child).length === 1 && running(h.main).length === 1)).toBe(true);
        const r = await run;
        expect(r.type).toBe('timeout');
        expect(await until(() => running(h.child).length === 0 && running(h.main).length === 0, 5000)).toBe(
          true,
        );
      },
    );

    it.each(WAYS)('cold, started %s: an abort (/stop) ends it the same way', async (way) => {
      const spawnProcess = spawnBy(way);
      const dir = tempDir('aw-sbspawn-');
      const { sandbox, env } = sandboxIn(dir);
      const h = hanging();
      const ac = new AbortController();
      const run = spawnProcess({
        file: 'sh',
        args: h.args,
        cwd: join(dir, 'work'),
        env,
        sandbox,
        signal: ac.signal,
        killGraceMs: 500,
      });
      expect(await until(() => running(h.child).length === 1)).toBe(true);
      ac.abort();
      expect((await run).type).toBe('aborted');
      expect(await until(() => running(h.child).length === 0 && running(h.main).length === 0, 5000)).toBe(
        true,
      );
    });

    it('warm: a sandboxed long-lived child answers on its pipes and is stopped with its children', async () => {
      const dir = tempDir('aw-sbspawn-');
      const { sandbox, env } = sandboxIn(dir);
      const h = hanging();
      const s = await startStdioChild({
        file: 'sh',
        args: ['-c', `sleep ${h.child} & read line; echo "got $line"; sleep ${h.main}`],
        cwd: join(dir, 'work'),
        env,
        sandbox,
      });
      expect(s.type).toBe('started');
      if (s.type !== 'started') return;
      let out = '';
      s.child.stdout.setEncoding('utf8');
      s.child.stdout.on('data', (d: string) => {
        out += d;
      });
      s.child.stdin.write('hello\n');
      expect(await until(() => out.includes('got hello'))).toBe(true);
      expect(await until(() => running(h.main).length === 1)).toBe(true);
      await s.child.stop(500);
      expect(await until(() => running(h.child).length === 0 && running(h.main).length === 0, 5000)).toBe(
        true,
      );
    });

    it('warm: a stop gives the CLI its TERM first (it can save its session), then bwrap ends', async () => {
      const dir = tempDir('aw-sbspawn-');
      const { sandbox, env } = sandboxIn(dir);
      const work = join(dir, 'work');
      const h = hanging();
      const s = await startStdioChild({
        file: 'sh',
        args: ['-c', `trap 'echo saved > ${work}/bye; exit 0' TERM; echo up; sleep ${h.main} & wait`],
        cwd: work,
        env,
        sandbox,
      });
      if (s.type !== 'started') throw new Error(s.type);
      let out = '';
      s.child.stdout.setEncoding('utf8');
      s.child.stdout.on('data', (d: string) => {
        out += d;
      });
      expect(await until(() => out.includes('up') && running(h.main).length === 1)).toBe(true);
      const exit = await s.child.stop(5000);
      // Ended by its own exit after TERM, not by the KILL after the grace.
      expect(readFileSync(join(work, 'bye'), 'utf8')).toBe('saved\n');
      expect(exit.signal).toBeNull();
      expect(await until(() => running(h.main).length === 0, 5000)).toBe(true);
    });

    it("cold, started from a launcher: a sandbox bwrap cannot make is bwrap's own reason, marked", async () => {
      const dir = tempDir('aw-sbspawn-');
      const { sandbox, env } = sandboxIn(dir);
      const broken = unmakeable(sandbox, join(dir, 'gone'));
      const marker = join(dir, 'work', 'ran');
      const cold = await spawnBy('from a launcher')({
        file: 'sh',
        args: ['-c', `touch ${marker}`],
        cwd: join(dir, 'work'),
        env,
        sandbox: broken,
      });
      expect(cold).toMatchObject({ type: 'spawn_failed', sandbox: true });
      expect(cold.type === 'spawn_failed' && cold.message).toMatch(/^bwrap: Can't find source path .*gone/);
      expect(readdirSync(join(dir, 'work'))).not.toContain('ran');
    });

    it("a sandbox bwrap cannot make: bwrap's own reason, marked, and the program never ran", async () => {
      const dir = tempDir('aw-sbspawn-');
      const { sandbox, env } = sandboxIn(dir);
      const broken = unmakeable(sandbox, join(dir, 'gone'));
      const marker = join(dir, 'work', 'ran');
      const cold = await spawnProcess({
        file: 'sh',
        args: ['-c', `touch ${marker}`],
        cwd: join(dir, 'work'),
        env,
        sandbox: broken,
      });
      expect(cold).toMatchObject({ type: 'spawn_failed', sandbox: true });
      expect(cold.type === 'spawn_failed' && cold.message).toMatch(/^bwrap: Can't find source path .*gone/);
      const warm = await startStdioChild({
        file: 'sh',
        args: ['-c', `touch ${marker}`],
        cwd: join(dir, 'work'),
        env,
        sandbox: broken,
      });
      expect(warm).toMatchObject({ type: 'spawn_failed', sandbox: true });
      expect(warm.type === 'spawn_failed' && warm.message).toMatch(/^bwrap: Can't find source path .*gone/);
      expect(readdirSync(join(dir, 'work'))).not.toContain('ran');
    });
  },
);

describe('the spawn helpers with a sandbox that could not be planned', () => {
  it('start nothing and say why (no fallback to running bare)', async () => {
    const dir = tempDir('aw-sbspawn-');
    const sandbox: Sandbox = { type: 'unavailable', error: 'bwrap is not installed' };
    const env = { PATH: '/usr/bin:/bin' };
    const args = ['-c', `touch ${join(dir, 'ran')}`];
    expect(await spawnProcess({ file: 'sh', args, cwd: dir, env, sandbox })).toMatchObject({
      type: 'spawn_failed',
      message: 'bwrap is not installed',
      sandbox: true,
    });
    expect(await startStdioChild({ file: 'sh', args, cwd: dir, env, sandbox })).toMatchObject({
      type: 'spawn_failed',
      message: 'bwrap is not installed',
      sandbox: true,
    });
    expect(readdirSync(dir)).toEqual([]);
  });
});

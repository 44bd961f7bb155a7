// A sandboxed agent runs lowered (runner/nice.ts) inside the sandbox: bwrap starts the CLI in a
// session of its own, so lowering bwrap's pid from outside misses the CLI's scheduling group
// (autogroup). The CLI itself, found by its command line, has nice 10 and its group nice 10 when
// warm, started here or from a launcher; a cold run keeps the relay's nice.
// And the shell step that does it, run bare: absolute (a start already at 10 stays 10), and a
// sandbox without `nice` still runs the CLI. Skips, saying why, where bwrap cannot run.
import { spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { bwrapArgv, type SandboxPlan } from '../../src/core/sandbox.js';
import { AGENT_NICE, lowered } from '../../src/runner/nice.js';
import { spawnProcess } from '../../src/runner/spawn.js';
import { startStdioChild } from '../../src/runner/spawn-stdio.js';
import { bwrapMissing, killRunning, running, sandboxIn } from '../helpers/bwrap.js';
import { launcherFixture, waitFor } from '../helpers/launcher.js';
import { tempDir } from '../helpers/tmp.js';
import { groupNiceOf, niceOf } from '../support/procs.js';

const missing = bwrapMissing();
const { newLauncher, cleanup } = launcherFixture('aw-sb-lowered-');
afterAll(cleanup);
const WAYS = ['here', 'from a launcher'] as const;
const launcher = newLauncher();
const launcherFor = (way: (typeof WAYS)[number]) => (way === 'here' ? {} : { launcher });

const groupsHere = existsSync('/proc/self/autogroup');
const expected = (nice: number, group: number) => ({ nice, group: groupsHere ? group : undefined });

// A failing test must not leave its sleeper behind.
const needles: string[] = [];
afterEach(() => killRunning(needles.splice(0)));

/** The CLI inside (`sleep <needle>`): its priorities once it runs, lowered ones waited for. */
async function prioritiesOf(needle: string, lowered: boolean, which = (_pid: number) => true) {
  const cli = () => running(needle).filter(which);
  expect(await waitFor(() => cli().length === 1, 10_000)).toBe(true);
  const pid = cli()[0] as number;
  const seen = () => ({ nice: niceOf(pid), group: groupNiceOf(pid) });
  if (lowered) await waitFor(() => niceOf(pid) === AGENT_NICE && groupNiceOf(pid) !== 0);
  return seen();
}

const newNeedle = () => {
  const needle = `5000.${randomInt(1e9)}`;
  needles.push(needle);
  return needle;
};

/** A cold sandboxed run of `sleep <needle>`: the CLI's priorities once it runs, then the run stopped. */
async function coldPriorities(needle: string) {
  const dir = tempDir('aw-sb-lowered-');
  const { sandbox, env } = sandboxIn(dir);
  const stop = new AbortController();
  const run = spawnProcess({
    file: 'sleep',
    args: [needle],
    cwd: join(dir, 'work'),
    env,
    sandbox,
    signal: stop.signal,
    killGraceMs: 500,
  });
  const seen = await prioritiesOf(needle, false).finally(() => stop.abort());
  expect((await run).type).toBe('aborted');
  return seen;
}

/**
 * A warm sandboxed process of `sleep <needle>`, as the pool starts it (drivers/warm.ts, with the
 * pool's guard): the CLI's priorities once lowered (not `skip`'s), then the process stopped.
 */
async function warmPriorities(needle: string, way: (typeof WAYS)[number], skip?: number) {
  const dir = tempDir('aw-sb-lowered-');
  const { sandbox, env } = sandboxIn(dir);
  const s = await startStdioChild({
    file: 'sleep',
    args: [needle],
    cwd: join(dir, 'work'),
    env,
    sandbox,
    lower: true,
    guard: lowered(undefined),
    ...launcherFor(way),
  });
  if (s.type !== 'started') throw new Error(JSON.stringify(s));
  try {
    return await prioritiesOf(needle, true, (pid) => pid !== skip);
  } finally {
    await s.child.stop(500);
  }
}

describe.skipIf(missing)(`a sandboxed agent's priority${missing ? ` (skipped: ${missing})` : ''}`, () => {
  it.each(WAYS)(
    'warm, started %s with the pool guard: the CLI inside at nice 10, its group too',
    async (way) => {
      expect(await warmPriorities(newNeedle(), way)).toEqual(expected(AGENT_NICE, AGENT_NICE));
    },
  );

  it.skipIf(!groupsHere)(
    'a group change the kernel refuses at first (one per 100 ms) is tried again until it takes',
    async () => {
      const needle = newNeedle();
      // Another session's group changed just now: the one inside, a few ms later, is refused first.
      const other = spawn('sleep', [needle], { detached: true, stdio: 'ignore' });
      try {
        try {
          writeFileSync(`/proc/${other.pid}/autogroup`, '5');
        } catch {
          // Refused (EAGAIN): another group changed just now, which is as good.
        }
        const seen = await warmPriorities(needle, 'here', other.pid);
        expect(seen).toEqual(expected(AGENT_NICE, AGENT_NICE));
      } finally {
        other.kill('SIGKILL');
      }
    },
  );

  it('cold: the CLI keeps the relay nice, in a group at the default 0', async () => {
    expect(await coldPriorities(newNeedle())).toEqual(expected(getPriority(), 0));
  });
});

/** The shell step bwrapArgv puts before the CLI, as argv to run outside a sandbox. */
function shimOf(cli: string[]): string[] {
  const plan: SandboxPlan = {
    type: 'bwrap',
    bwrap: '/usr/bin/bwrap',
    rw: [],
    ro: [],
    roTry: [],
    links: [],
    tmpfs: [],
    hidden: [],
    setEnv: {},
  };
  const r = bwrapArgv(plan, { file: cli[0] as string, args: cli.slice(1) }, undefined, { nice: AGENT_NICE });
  if (!r.ok) throw new Error(r.error);
  return r.launch.args.slice(r.launch.args.indexOf('--') + 1);
}

/**
 * The nice `cat /proc/self/stat` saw after the shim, started `more` above this process's nice, in a
 * session of its own.
 */
function shimmed(more: number, PATH: string): Promise<{ code: number | null; nice: number }> {
  const [sh, ...args] = shimOf(['/bin/cat', '/proc/self/stat']);
  // Its own session (detached), as inside bwrap: the shim lowers its session's group, not ours.
  const c = spawn('/usr/bin/nice', ['-n', String(more), sh as string, ...args], {
    env: { PATH },
    detached: true,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  c.stdout.setEncoding('utf8');
  c.stdout.on('data', (d: string) => {
    out += d;
  });
  return new Promise((resolve) =>
    c.once('close', (code) =>
      resolve({ code, nice: Number(out.slice(out.lastIndexOf(')') + 2).split(' ')[16]) }),
    ),
  );
}

describe.skipIf(!existsSync('/usr/bin/nice'))(
  'the lowering shell step, run bare (needs /usr/bin/nice)',
  () => {
    // This process's nice is the relay's; a start already at 10 or more is left there (19 at most).
    const base = getPriority();
    it.each([0, 3, AGENT_NICE])(
      'started %i above the relay nice, the CLI runs at nice 10 (absolute: never 10 more)',
      async (more) => {
        expect(await shimmed(more, '/usr/bin:/bin')).toEqual({
          code: 0,
          nice: Math.max(AGENT_NICE, Math.min(19, base + more)),
        });
      },
    );

    it('without `nice` on PATH the CLI runs all the same, at the nice it was given', async () => {
      expect(await shimmed(0, '/nowhere')).toEqual({ code: 0, nice: base });
    });
  },
);

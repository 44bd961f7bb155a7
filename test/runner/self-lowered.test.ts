// A warm agent outside a sandbox lowers itself as it starts (runner/sandbox-launch.ts, through the
// shell step of core/lowering-shell.ts): its very first instruction runs at nice 10, and its
// session's scheduling group (autogroup) is lowered too, with no help from the relay (no guard
// here, which is what would lower it from outside). The program given runs as itself (exec: the
// pid the relay knows is the CLI's), with its own arguments and pipes, started here or from a
// launcher; a program that is not there is still "not found". Linux only: elsewhere the relay lowers
// the pid itself (nice.ts).
import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { AGENT_NICE } from '../../src/runner/nice.js';
import { startStdioChild } from '../../src/runner/spawn-stdio.js';
import { env, launcherFixture, waitFor } from '../helpers/launcher.js';
import { groupNiceOf } from '../support/procs.js';

const linux = process.platform === 'linux';
const groupsHere = existsSync('/proc/self/autogroup');
const { dir, newLauncher, cleanup } = launcherFixture('aw-self-lowered-');
afterAll(cleanup);
const WAYS = ['here', 'from a launcher'] as const;

/**
 * The CLI (a shell) prints its own nice (field 19 of /proc/<pid>/stat) and argv before anything
 * else, then waits on stdin until it closes, so the test can look at its group meanwhile.
 */
const CLI = [
  '-c',
  'a0=$0; a1=$1; read -r s </proc/$$/stat; set -- ${s##*) }; echo "${17} $a0 $a1"; cat >/dev/null',
  'argv0',
  'first arg',
];

describe.skipIf(!linux)('a warm agent lowers itself from its first instruction (Linux)', () => {
  it.each(WAYS)('started %s: nice 10 at its start, its group lowered, its argv its own', async (way) => {
    const launcher = way === 'here' ? undefined : newLauncher();
    const s = await startStdioChild({
      file: '/bin/sh',
      args: CLI,
      cwd: dir,
      env,
      ...(launcher && { launcher }),
    });
    if (s.type !== 'started') throw new Error(JSON.stringify(s));
    let out = '';
    s.child.stdout.setEncoding('utf8');
    s.child.stdout.on('data', (d: string) => {
      out += d;
    });
    try {
      expect(await waitFor(() => out.includes('\n'))).toBe(true);
      expect(out).toBe(`${AGENT_NICE} argv0 first arg\n`);
      // The first write of the group is refused when another change came within 100 ms (a relay not
      // run as root): the step's own retry, in the background, takes it then.
      if (groupsHere) expect(await waitFor(() => groupNiceOf(s.child.pid) === AGENT_NICE)).toBe(true);
    } finally {
      await s.child.stop(500);
    }
  });

  it('a program that is not there is not_found, not a shell that failed', async () => {
    const s = await startStdioChild({ file: 'aw-no-such-program-5e2', args: [], cwd: dir, env });
    expect(s).toMatchObject({ type: 'not_found', file: 'aw-no-such-program-5e2' });
  });
});

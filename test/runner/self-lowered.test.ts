// A warm agent (`lower`) outside a sandbox lowers itself as it starts (runner/sandbox-launch.ts, through the
// shell step of core/lowering-shell.ts): its very first instruction runs at nice 10, and its
// session's scheduling group (autogroup) is lowered too, with no help from the relay (no guard
// here, which is what would lower it from outside). The program given runs as itself (exec: the
// pid the relay knows is the CLI's), with its own arguments and pipes, started here or from a
// launcher; a program that is not there is still "not found"; anything else started this way (a
// user's MCP server) keeps the relay's priority. Linux only: elsewhere the relay lowers
// the pid itself (nice.ts).
import { existsSync } from 'node:fs';
import { getPriority } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AGENT_NICE } from '../../src/runner/nice.js';
import { type StdioChild, startStdioChild } from '../../src/runner/spawn-stdio.js';
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
/** An argument the shell step must pass on as it is, never read as shell. */
const HOSTILE = `first arg $(touch pwned) \`id\` "; exit 3; ' $HOME *`;

const CLI = [
  '-c',
  'a0=$0; a1=$1; read -r s </proc/$$/stat; set -- ${s##*) }; echo "${17} $a0 $a1"; cat >/dev/null',
  'argv0',
  HOSTILE,
];

/** The first line the CLI printed. */
async function firstLine(child: StdioChild): Promise<string> {
  let out = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (d: string) => {
    out += d;
  });
  expect(await waitFor(() => out.includes('\n'))).toBe(true);
  return out.slice(0, out.indexOf('\n'));
}

/** The test CLI through the one start helper, here or from a launcher, with `lower` or without. */
async function startCli(way: (typeof WAYS)[number], lower: boolean) {
  const launcher = way === 'here' ? undefined : newLauncher();
  const s = await startStdioChild({
    file: '/bin/sh',
    args: CLI,
    cwd: dir,
    env,
    ...(lower && { lower: true }),
    ...(launcher && { launcher }),
  });
  if (s.type !== 'started') throw new Error(JSON.stringify(s));
  return s;
}

describe.skipIf(!linux)('a warm agent lowers itself from its first instruction (Linux)', () => {
  it.each(WAYS)(
    'started %s: nice 10 at its start, its group lowered, its argv its own, hostile text as text',
    async (way) => {
      const s = await startCli(way, true);
      try {
        expect(await firstLine(s.child)).toBe(`${AGENT_NICE} argv0 ${HOSTILE}`);
        expect(existsSync(join(dir, 'pwned'))).toBe(false);
        // The first write of the group is refused when another change came within 100 ms (a relay not
        // run as root): the step's own retry, in the background, takes it then.
        if (groupsHere) expect(await waitFor(() => groupNiceOf(s.child.pid) === AGENT_NICE)).toBe(true);
      } finally {
        await s.child.stop(500);
      }
    },
  );

  it.each(WAYS)(
    'not a warm agent (a host MCP server), started %s: the relay nice, its group left',
    async (way) => {
      const s = await startCli(way, false);
      try {
        expect(await firstLine(s.child)).toBe(`${getPriority()} argv0 ${HOSTILE}`);
        if (groupsHere) expect(groupNiceOf(s.child.pid)).toBe(0);
      } finally {
        await s.child.stop(500);
      }
    },
  );

  it('a program that is not there is not_found, not a shell that failed', async () => {
    const s = await startStdioChild({ file: 'aw-no-such-program-5e2', args: [], cwd: dir, env, lower: true });
    expect(s).toMatchObject({ type: 'not_found', file: 'aw-no-such-program-5e2' });
  });
});

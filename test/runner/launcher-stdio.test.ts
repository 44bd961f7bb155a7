// A warm agent's process (spawn-stdio.ts) started from the launcher: its pipes cross the launcher's
// channel and read and write as a child's own; the group, the mark and the stop are handled from
// here by pid; a launcher that dies ends the process and its `exited`. Real processes throughout.
import { createInterface } from 'node:readline';
import { finished } from 'node:stream/promises';
import { afterAll, describe, expect, it } from 'vitest';
import type { GroupGuard, StdioChild, StdioStart } from '../../src/runner/spawn-stdio.js';
import { startStdioChild } from '../../src/runner/spawn-stdio.js';
import { alive, env, launcherFixture, node, waitFor, waitGone } from '../helpers/launcher.js';
import { parentOf } from '../support/procs.js';

const { strays, script, newLauncher, cleanup } = launcherFixture('aw-launcher-stdio-');
afterAll(cleanup);

// Answers each stdin line with "echo: <line>" and says something on stderr first.
const ECHO = script(
  'echo.mjs',
  `import { createInterface } from 'node:readline';
import { finished } from 'node:stream/promises';
process.stderr.write('echo ready\\n');
createInterface({ input: process.stdin }).on('line', (l) => process.stdout.write('echo: ' + l + '\\n'));
process.stdin.on('end', () => process.exit(0));
`,
);

function child(s: StdioStart): StdioChild {
  if (s.type !== 'started') throw new Error(`expected a start, got ${JSON.stringify(s)}`);
  strays.push(s.child.pid);
  return s.child;
}

/** The next line the child writes on stdout. */
const nextLine = (c: StdioChild) =>
  new Promise<string>((resolve) => createInterface({ input: c.stdout }).once('line', resolve));

describe('a warm process started from the launcher', () => {
  it("talks over its pipes as a child's own, from the launcher, and ends at the end of its input", async () => {
    const l = newLauncher();
    const watched: number[] = [];
    const guard: GroupGuard = { watch: (pid) => watched.push(pid), forget: () => undefined };
    const c = child(await startStdioChild({ file: node, args: [ECHO], env, launcher: l, guard }));
    expect(parentOf(c.pid)).toBe(l.pid());
    expect(watched).toEqual([c.pid]);
    const line = nextLine(c);
    c.stdin.write('hello\n');
    expect(await line).toBe('echo: hello');
    expect(await waitFor(() => c.stderrTail().includes('echo ready'))).toBe(true);
    c.stdin.end();
    expect(await c.exited).toEqual({ exitCode: 0, signal: null });
  });

  it('stop() ends its whole group from here, grandchild too', async () => {
    const l = newLauncher();
    const holder = script(
      'holder.mjs',
      `import { spawn } from 'node:child_process';
const g = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
process.stdout.write(g.pid + '\\n');
setInterval(() => {}, 1000);
`,
    );
    const c = child(await startStdioChild({ file: node, args: [holder], env, launcher: l }));
    const grandchild = Number(await nextLine(c));
    strays.push(grandchild);
    expect(alive(grandchild)).toBe(true);
    const exit = await c.stop(2000);
    expect(exit.signal).toBe('SIGTERM');
    expect(await waitGone(grandchild)).toBe(true);
  });

  it('a launcher that dies takes the process along, and `exited` says it was killed', async () => {
    const l = newLauncher();
    const c = child(await startStdioChild({ file: node, args: [ECHO], env, launcher: l }));
    process.kill(l.pid() as number, 'SIGKILL');
    expect(await c.exited).toEqual({ exitCode: null, signal: 'SIGKILL' });
    expect(await waitGone(c.pid)).toBe(true);
    // The stream ends too, so a driver reading it sees the end as with a child's own pipe.
    await finished(c.stdout.resume());
    expect(c.stdout.readableEnded).toBe(true);
  });

  it('a program that is not there is not_found, as without the launcher', async () => {
    const l = newLauncher();
    const s = await startStdioChild({ file: 'agentwire-no-such-cli', args: [], env, launcher: l });
    expect(s.type).toBe('not_found');
  });
});

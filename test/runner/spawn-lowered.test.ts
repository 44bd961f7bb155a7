// An agent's one-off run (spawnProcess with `lowerPriority`, as run-command-reply.ts asks for every
// cold turn) runs at the agents' lower priority, started here or from a launcher: its nice and its
// session's scheduling group (autogroup), without which the nice weighs nothing against the relay.
// Any other run (a tool, a check, a script) keeps the relay's priority.
import { existsSync } from 'node:fs';
import { getPriority } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AGENT_NICE } from '../../src/runner/nice.js';
import { spawnProcess } from '../../src/runner/spawn.js';
import { env, launcherFixture, waitFor } from '../helpers/launcher.js';
import { groupNiceOf, niceOf, sleeperArgv, sleeperPid } from '../support/procs.js';

const { dir, newLauncher, cleanup } = launcherFixture('aw-spawn-lowered-');
afterAll(cleanup);

const expectedGroupNice = (n: number) => (existsSync('/proc/self/autogroup') ? n : undefined);

let n = 0;
/** Starts a sleeper, reads its priorities once it runs, then stops it. */
async function prioritiesOf(opts: { lowerPriority?: boolean; launched?: boolean }) {
  const file = join(dir, `pid-${++n}`);
  const [bin, ...args] = sleeperArgv(file);
  const stop = new AbortController();
  const run = spawnProcess({
    file: bin as string,
    args,
    env,
    signal: stop.signal,
    killGraceMs: 500,
    ...(opts.lowerPriority && { lowerPriority: true }),
    ...(opts.launched && { launcher: newLauncher() }),
  });
  const pid = await sleeperPid(file);
  // The sleeper writes its pid once node has loaded, mostly after this process heard of it (from a
  // launcher, a message away) and lowered it; the wait covers a loaded machine, where that can
  // come later. A run left at the relay's priority shows at once.
  if (opts.lowerPriority) await waitFor(() => niceOf(pid) === AGENT_NICE && groupNiceOf(pid) !== 0);
  const seen = { nice: niceOf(pid), group: groupNiceOf(pid) };
  stop.abort();
  expect((await run).type).toBe('aborted');
  return seen;
}

describe.skipIf(process.platform !== 'linux')('spawnProcess lowerPriority (reads /proc)', () => {
  it('an agent run started here runs at nice 10 in a lowered group', async () => {
    expect(await prioritiesOf({ lowerPriority: true })).toEqual({
      nice: AGENT_NICE,
      group: expectedGroupNice(AGENT_NICE),
    });
  });

  it('an agent run started from a launcher too', async () => {
    expect(await prioritiesOf({ lowerPriority: true, launched: true })).toEqual({
      nice: AGENT_NICE,
      group: expectedGroupNice(AGENT_NICE),
    });
  });

  it('any other run keeps the relay priority', async () => {
    // Its own nice is this process's; its session's group is new, at the default 0.
    expect(await prioritiesOf({})).toEqual({ nice: getPriority(), group: expectedGroupNice(0) });
  });
});

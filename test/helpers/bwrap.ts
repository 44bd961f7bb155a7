// Whether this machine can run the bwrap sandbox, and if not, the true reason: sandbox tests skip
// with it (`npm test` passes on a machine without bubblewrap, and says what is missing). And what
// the sandboxed spawn tests share: an agent's sandbox in a temp folder, the processes run inside.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findBwrap, makeSandbox } from '../../src/agents/sandbox-plan.js';
import type { Sandbox } from '../../src/core/sandbox.js';
import { liveProcesses } from '../support/procs.js';

let cached: string | undefined | null = null;

/** undefined when bwrap works here; else why not (not installed, user namespaces refused…). */
export function bwrapMissing(): string | undefined {
  if (cached !== null) return cached;
  const bwrap = findBwrap(process.env.PATH);
  if (!bwrap) cached = 'bwrap is not installed (Debian: apt-get install bubblewrap)';
  else {
    const r = spawnSync(bwrap, ['--unshare-all', '--share-net', '--ro-bind', '/', '/', '--', 'true'], {
      encoding: 'utf8',
      timeout: 10_000,
    });
    cached =
      r.status === 0
        ? undefined
        : `bwrap cannot make a sandbox here: ${(r.stderr || r.error?.message || `exit ${r.status}`).trim()}`;
  }
  return cached;
}

/** The sandbox of an agent working in `<dir>/work`: each test's cwd. */
export function sandboxIn(dir: string): { sandbox: Sandbox; env: Record<string, string> } {
  const env = { PATH: '/usr/bin:/bin', HOME: join(dir, 'home') };
  mkdirSync(join(dir, 'work'));
  const made = makeSandbox('acp', {
    cwd: join(dir, 'work'),
    env,
    stateDir: join(dir, 'state', 'agents', 'acp'),
    command: ['sh'],
    hidden: [join(dir, 'state', 'agentwire.db')],
  });
  if (!made.ok) throw new Error(made.error);
  return { sandbox: { type: 'bwrap', plan: made.plan }, env };
}

/** Live `sleep <needle>` processes (zombies excluded). */
export function running(needle: string): number[] {
  // The program itself, not bwrap nor the shell, whose own argv holds the same words.
  return liveProcesses((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8') === `sleep\0${needle}\0`);
}

/** Kills what still runs `sleep <needle>` for each of `needles` (a failing test's leftovers). */
export function killRunning(needles: string[]): void {
  for (const needle of needles)
    for (const pid of running(needle)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
}

/** A sandbox bwrap cannot make: `sandbox` with a read-only bind of a path that is not there. */
export function unmakeable(sandbox: Sandbox, missing: string): Sandbox {
  if (sandbox.type !== 'bwrap') throw new Error('no plan');
  return { type: 'bwrap', plan: { ...sandbox.plan, ro: [...sandbox.plan.ro, missing] } };
}

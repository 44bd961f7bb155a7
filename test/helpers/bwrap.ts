// Whether this machine can run the bwrap sandbox, and if not, the true reason: sandbox tests skip
// with it (`npm test` passes on a machine without bubblewrap, and says what is missing). And what
// the sandboxed spawn tests share: an agent's sandbox in a temp folder, the processes run inside.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findBwrap, makeSandbox } from '../../src/agents/sandbox-plan.js';
import type { Sandbox } from '../../src/core/sandbox.js';

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
  const out: number[] = [];
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const cmd = readFileSync(`/proc/${e}/cmdline`, 'utf8');
      const stat = readFileSync(`/proc/${e}/stat`, 'utf8');
      // The program itself, not bwrap nor the shell, whose own argv holds the same words.
      if (cmd === `sleep\0${needle}\0` && stat[stat.lastIndexOf(')') + 2] !== 'Z') out.push(Number(e));
    } catch {
      // ended while we looked
    }
  }
  return out;
}

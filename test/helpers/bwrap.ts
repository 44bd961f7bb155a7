// Whether this machine can run the bwrap sandbox, and if not, the true reason: sandbox tests skip
// with it (`npm test` passes on a machine without bubblewrap, and says what is missing).
import { spawnSync } from 'node:child_process';
import { findBwrap } from '../../src/agents/sandbox-plan.js';

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

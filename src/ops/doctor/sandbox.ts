// The bwrap sandbox, when an agent uses it (agent.sandbox: bwrap): bwrap is installed and can make
// the namespaces the sandbox uses here. The relay never runs a sandboxed agent without it, so a
// machine where it cannot work must say so before the first message does.
import { configuredKinds, resolveAgent } from '../../agents/resolve.js';
import { findBwrap } from '../../agents/sandbox-plan.js';
import type { Paths } from '../../config/paths.js';
import type { Config } from '../../config/schema.js';
import type { Probe } from './probe.js';
import { type Finding, fail, ok } from './types.js';

const CHECK = 'sandbox';

/** The same namespaces as an agent's sandbox (core/sandbox.ts), around `true`. */
export const BWRAP_PROBE = ['--unshare-all', '--share-net', '--ro-bind', '/', '/', '--', 'true'];

const USERNS_FIX =
  'allow unprivileged user namespaces: sysctl kernel.unprivileged_userns_clone=1 (Debian before 11), ' +
  'user.max_user_namespaces above 0, kernel.apparmor_restrict_unprivileged_userns=0 or an AppArmor profile for bwrap (Ubuntu 23.10+); ' +
  'in a container, run it with user namespaces allowed (Docker: --security-opt seccomp=unconfined, or a seccomp profile that allows unshare/clone)';

export async function checkSandbox(
  config: Config,
  paths: Paths,
  env: NodeJS.ProcessEnv,
  probe: Probe,
  timeoutMs: number,
): Promise<Finding[]> {
  const kinds = configuredKinds(config).filter((k) => {
    try {
      return resolveAgent(config, paths, k, { env, createDirs: false }).sandbox !== undefined;
    } catch {
      return false; // checkAgents reports settings that do not resolve
    }
  });
  if (kinds.length === 0) return [];
  const who = kinds.join(', ');
  const bwrap = findBwrap(env.PATH);
  if (!bwrap)
    return [
      fail(
        CHECK,
        `${who} must run in the bwrap sandbox, but bwrap is not installed; they will not run until it is`,
        'apt-get install bubblewrap (Debian, Ubuntu), dnf install bubblewrap (Fedora)',
      ),
    ];
  const r = await probe([bwrap, ...BWRAP_PROBE], {
    env: { PATH: env.PATH ?? '/usr/bin:/bin' },
    cwd: '/',
    timeoutMs,
  });
  if (r.type === 'exited' && r.code === 0)
    return [ok(CHECK, `bwrap makes sandboxes here (${bwrap}; for ${who})`)];
  const why =
    r.type === 'exited'
      ? (r.stderr.split('\n').find((l) => l.trim()) ?? `exit ${r.code ?? r.signal}`).slice(0, 200)
      : r.type === 'timeout'
        ? 'it did not finish'
        : r.message.slice(0, 200);
  return [
    fail(
      CHECK,
      `${who} must run in the bwrap sandbox, but bwrap cannot make one here (${why}); they will not run until it can`,
      USERNS_FIX,
    ),
  ];
}

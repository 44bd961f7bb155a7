// The launch transform both spawn helpers apply: a run whose agent is sandboxed starts bwrap with
// the CLI inside; one whose sandbox cannot be made does not start at all (never bare instead).
import { bwrapArgv, type Launch, type Sandbox } from '../core/sandbox.js';

export type Launched = { ok: true; launch: Launch } | { ok: false; error: string };

export function launchIn(
  sandbox: Sandbox | undefined,
  launch: Launch,
  cwd: string | undefined,
  opts: { readyFd?: number } = {},
): Launched {
  if (!sandbox) return { ok: true, launch };
  switch (sandbox.type) {
    case 'unavailable':
      return { ok: false, error: sandbox.error };
    case 'bwrap': {
      const r = bwrapArgv(sandbox.plan, launch, cwd, opts);
      return r.ok ? r : { ok: false, error: r.error };
    }
  }
}

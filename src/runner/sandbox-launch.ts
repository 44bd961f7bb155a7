// The launch transform both spawn helpers apply: a run whose agent is sandboxed starts bwrap with
// the CLI inside; one whose sandbox cannot be made does not start at all (never bare instead).
//
// The run mark goes inside only (bwrap's --setenv), never on bwrap itself: bwrap dies at once on
// SIGTERM and takes the sandbox with it (SIGKILL, --die-with-parent), so a stop's TERM goes to the
// marked processes alone, which lets the CLI end its turn and save its session; KILL, after the
// grace, goes to bwrap's group and the marks as for any run.
//
// A lowered run (`lower`: the warm agents) lowers itself as it starts, through a shell step before
// the CLI (core/lowering-shell.ts), so it is lowered from its first instruction, not from when the
// relay hears its pid. Sandboxed, the step runs inside: bwrap starts the CLI in a session of its own
// (--new-session), so the relay's lowering of bwrap's pid (nice.ts) would miss the CLI's scheduling
// group. Outside a sandbox, on Linux, with the program found: a program that is not there is left
// to the spawn, which says "not found" as before; elsewhere the relay lowers the pid (nice.ts).
import { loweredLaunch, SH } from '../core/lowering-shell.js';
import { onPath } from '../core/on-path.js';
import { bwrapArgv, type Launch, type Sandbox } from '../core/sandbox.js';
import { AGENT_NICE } from './nice.js';
import { RUN_MARK_ENV, signalMarked } from './run-mark.js';

/** `lowersItself`: the launch lowers the CLI (a lowered run), so the relay need not (nice.ts). */
export type Launched = { ok: true; launch: Launch; lowersItself: boolean } | { ok: false; error: string };

export function launchIn(
  sandbox: Sandbox | undefined,
  launch: Launch,
  cwd: string | undefined,
  env: Record<string, string>,
  opts: { readyFd?: number; lower?: boolean } = {},
): Launched {
  if (!sandbox) {
    const self =
      opts.lower === true && process.platform === 'linux' && selfLowerable(launch.file, cwd, env.PATH);
    return { ok: true, launch: self ? loweredLaunch(launch, AGENT_NICE) : launch, lowersItself: self };
  }
  switch (sandbox.type) {
    case 'unavailable':
      return { ok: false, error: sandbox.error };
    case 'bwrap': {
      const mark = env[RUN_MARK_ENV];
      delete env[RUN_MARK_ENV];
      const plan = mark
        ? { ...sandbox.plan, setEnv: { ...sandbox.plan.setEnv, [RUN_MARK_ENV]: mark } }
        : sandbox.plan;
      const r = bwrapArgv(plan, launch, cwd, {
        ...(opts.readyFd !== undefined && { readyFd: opts.readyFd }),
        ...(opts.lower && { nice: AGENT_NICE }),
      });
      return r.ok ? { ...r, lowersItself: opts.lower === true } : { ok: false, error: r.error };
    }
  }
}

/** The shell is there and so is the program (the spawn's own lookup would find it). */
function selfLowerable(file: string, cwd: string | undefined, path: string | undefined): boolean {
  return onPath(SH, undefined) !== undefined && onPath(file, path, cwd) !== undefined;
}

/**
 * A stop's first signal: TERM to the run's group and marks, or, sandboxed, to the marked processes
 * inside alone (see above). `kill` is the helpers' killRun.
 */
export function termRun(
  sandboxed: boolean,
  pid: number,
  mark: string,
  kill: (pid: number, mark: string, signal: NodeJS.Signals) => void,
): void {
  if (sandboxed) signalMarked(mark, 'SIGTERM');
  else kill(pid, mark, 'SIGTERM');
}

// The one way agentwire starts a process. argv only (no shell), an explicit environment, stdin
// ignored unless fed, the child leading its own process group so a timeout or abort can kill
// everything it started (TERM, then KILL), output streamed line by line and capped in bytes, and a
// result that settles exactly once, even when a grandchild keeps the pipes open (run-settle.ts).
// Each run's environment is marked (run-mark.ts), so a stop also ends what left the group (setsid).
// The program starts here through execa, or, given a launcher, from that small process instead
// (launcher/spawn-launched.ts), whose fork does not hold this process's event loop.
import type { ChildProcess } from 'node:child_process';
import { statSync } from 'node:fs';
import { execa } from 'execa';
import { NESTED_AGENT_ENV } from '../agents/registry.js';
import { startLaunched } from './launcher/spawn-launched.js';
import { newRunMark, RUN_MARK_ENV } from './run-mark.js';
import { settleRun } from './run-settle.js';
import { launchIn } from './sandbox-launch.js';
import { emptyFinished, type SpawnOptions, type SpawnResult } from './spawn-types.js';

export { killGroup, killRun, markOf, trackGroup, untrackGroup } from './run-groups.js';
export type { SpawnOptions, SpawnResult } from './spawn-types.js';

/**
 * Variables that make a CLI act differently when it believes it runs inside another agent: every
 * registered spec's `nestedEnv` (re-exported here for the long-lived spawns of spawn-stdio.ts).
 */
export { NESTED_AGENT_ENV };

export function spawnProcess(opts: SpawnOptions): Promise<SpawnResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const env = { ...opts.env };
  for (const k of NESTED_AGENT_ENV) delete env[k];
  // Set last, over anything inherited: a relay started by an agent run must not carry its mark on.
  const mark = newRunMark();
  env[RUN_MARK_ENV] = mark;

  return new Promise<SpawnResult>((resolve) => {
    if (opts.signal?.aborted) {
      resolve({ type: 'aborted', ...emptyFinished(0) });
      return;
    }
    // Checked first: a missing cwd makes spawn fail with ENOENT, which would read as "not installed".
    if (opts.cwd !== undefined && !isDirectory(opts.cwd)) {
      resolve({ type: 'spawn_failed', message: `working folder ${opts.cwd} does not exist`, durationMs: 0 });
      return;
    }
    // Sandboxed, the mark moves from bwrap's environment to the CLI's (sandbox-launch.ts).
    const launched = launchIn(opts.sandbox, { file: opts.file, args: opts.args }, opts.cwd, env);
    if (!launched.ok) {
      resolve({ type: 'spawn_failed', message: launched.error, durationMs: 0, sandbox: true });
      return;
    }
    const { launch } = launched;
    if (opts.launcher) {
      startLaunched(opts.launcher, launch, env, { opts, mark, startedAt: started, resolve });
      return;
    }
    let sub: ReturnType<typeof execa>;
    try {
      sub = execa(launch.file, [...launch.args], {
        cwd: opts.cwd,
        env,
        extendEnv: false,
        shell: false,
        detached: true,
        cleanup: false,
        buffer: false,
        reject: false,
        stripFinalNewline: false,
        // Fed stdin is written below; execa's `input` option would wrap the string in one more stream,
        // piped and awaited on every run (about 0.15 ms of CPU per run on the bench machine).
        stdin: opts.input !== undefined ? ('pipe' as const) : ('ignore' as const),
        stdout: 'pipe',
        stderr: 'pipe',
      });
    } catch (e) {
      // Arguments node refuses outright (a NUL byte in argv or env) throw here and start nothing.
      resolve({ type: 'spawn_failed', message: (e as Error).message, durationMs: elapsed() });
      return;
    }
    const child: ChildProcess = sub.nodeChildProcess;
    // A child that exits without reading makes this write fail with EPIPE, which execa's own
    // listener on stdin treats as normal, as it does for `input`. Nothing started, nothing to write.
    if (opts.input !== undefined && child.pid !== undefined) child.stdin?.end(opts.input);

    const pid = child.pid;
    let exited = false;
    const run = settleRun({
      opts,
      mark,
      startedAt: started,
      dropPipes: () => {
        child.stdout?.destroy();
        child.stderr?.destroy();
      },
      resolve,
    });
    if (pid !== undefined) run.started(pid);

    child.stdout?.on('data', (c: Buffer) => run.stdout(c));
    child.stderr?.on('data', (c: Buffer) => run.stderr(c));
    child.stdout?.once('close', () => run.stdoutClosed());
    child.stderr?.once('close', () => run.stderrClosed());
    child.once('exit', (code, signal) => {
      exited = true;
      run.exited(code, signal);
    });

    // Spawn failures (ENOENT, EACCES, a missing cwd) arrive through execa's result, not 'exit'.
    sub.then(
      (r) => {
        if (exited || !r.failed || pid !== undefined) return;
        const code = (r.cause as NodeJS.ErrnoException | undefined)?.code ?? (r as { code?: string }).code;
        const message = r.shortMessage ?? r.message ?? 'could not start';
        if (code === 'ENOENT' && opts.sandbox) {
          // bwrap itself went missing since the plan found it.
          run.failed({ type: 'spawn_failed', message, durationMs: 0, sandbox: true });
        } else if (code === 'ENOENT') {
          run.failed({ type: 'not_found', file: opts.file, message, durationMs: 0 });
        } else {
          run.failed({ type: 'spawn_failed', message, durationMs: 0 });
        }
      },
      (e: Error) => {
        if (pid === undefined) run.failed({ type: 'spawn_failed', message: e.message, durationMs: 0 });
      },
    );
  });
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

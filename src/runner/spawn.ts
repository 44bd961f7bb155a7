// The one way agentwire starts a process. argv only (no shell), an explicit environment, stdin
// ignored unless fed, the child leading its own process group so a timeout or abort can kill
// everything it started (TERM, then KILL), output streamed line by line and capped in bytes, and a
// result that settles exactly once, even when a grandchild keeps the pipes open. Each run's
// environment is marked (run-mark.ts), so a stop also ends what left the group (setsid).
import type { ChildProcess } from 'node:child_process';
import { statSync } from 'node:fs';
import { execa } from 'execa';
import { NESTED_AGENT_ENV } from '../agents/registry.js';
import { bwrapError, type Sandbox } from '../core/sandbox.js';
import { CappedLines } from './lines.js';
import { newRunMark, RUN_MARK_ENV, signalMarked } from './run-mark.js';
import { launchIn, termRun } from './sandbox-launch.js';

export interface SpawnOptions {
  /** The program (looked up on `env.PATH` when it has no slash). */
  file: string;
  args: readonly string[];
  cwd?: string;
  /** The whole environment of the child: nothing is inherited from this process. */
  env: Record<string, string>;
  /** Written to stdin, which is then closed. Without it stdin is ignored (never an open pipe). */
  input?: string;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Called for each stdout line as it arrives, also past the byte cap. */
  onStdoutLine?: (line: string) => void;
  /** Each complete stderr line as it arrives (a CLI's log lines, read for trouble). */
  onStderrLine?: (line: string) => void;
  /** Stdout lines it rejects are streamed but not kept (nor counted against the cap). */
  keepStdoutLine?: (line: string) => boolean;
  maxStdoutBytes?: number;
  maxStderrBytes?: number;
  /** Between TERM and KILL of the group after a timeout or abort. */
  killGraceMs?: number;
  /** After the child exited, how long pipes still held by a grandchild may stay open. */
  pipeGraceMs?: number;
  /** Run inside this sandbox (the agent's `sandbox`); unavailable: nothing starts. */
  sandbox?: Sandbox;
}

interface Finished {
  /** The kept stdout lines, newline-free, in order (a final unterminated line included). */
  stdoutLines: string[];
  stdout: string;
  stderr: string;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  /** Bytes the child wrote on stdout, including any dropped past the cap. */
  stdoutBytes: number;
  exitCode: number | null;
  signal: string | null;
  durationMs: number;
}

export type SpawnResult =
  | ({ type: 'exited' } & Finished)
  | ({ type: 'timeout'; timeoutMs: number } & Finished)
  | ({ type: 'aborted' } & Finished)
  | { type: 'not_found'; file: string; message: string; durationMs: number }
  /** `sandbox`: the sandbox could not be made, so the program did not run. */
  | { type: 'spawn_failed'; message: string; durationMs: number; sandbox?: true };

/**
 * Variables that make a CLI act differently when it believes it runs inside another agent: every
 * registered spec's `nestedEnv` (re-exported here for the long-lived spawns of spawn-stdio.ts).
 */
export { NESTED_AGENT_ENV };

const DEFAULT_STDOUT = 10 * 1024 * 1024;
const DEFAULT_STDERR = 1024 * 1024;

// Runs still going (group leader's pid → run mark): killed if this process exits, so a crash or a
// shutdown leaves no agent behind, nor anything it moved out of its group. A long-lived child
// (spawn-stdio.ts) has a mark of its own too, for its whole life.
const liveRuns = new Map<number, string | undefined>();
let exitHookInstalled = false;
function trackRun(pid: number, mark: string | undefined): void {
  liveRuns.set(pid, mark);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const [g, m] of liveRuns) killRun(g, m, 'SIGKILL');
  });
}

/** Tracks a long-lived child's group and mark (see spawn-stdio.ts): killed if this process exits. */
export function trackGroup(pid: number, mark?: string): void {
  trackRun(pid, mark);
}

/** The run mark of a tracked child, by its leader's pid (a warm turn's processes: turn-processes.ts). */
export function markOf(pid: number): string | undefined {
  return liveRuns.get(pid);
}

/** Forgets a group that ended on its own (long-lived children, see spawn-stdio.ts). */
export function untrackGroup(pid: number): void {
  liveRuns.delete(pid);
}

/** Signals a run's group and every process that carries its mark, wherever it moved. */
export function killRun(pid: number, mark: string | undefined, signal: NodeJS.Signals): void {
  killGroup(pid, signal);
  if (mark) signalMarked(mark, signal);
}

/** Signals the child's whole process group; a group that is already gone is not an error. */
export function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: nothing left in the group.
  }
}

export function spawnProcess(opts: SpawnOptions): Promise<SpawnResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const env = { ...opts.env };
  for (const k of NESTED_AGENT_ENV) delete env[k];
  // Set last, over anything inherited: a relay started by an agent run must not carry its mark on.
  const mark = newRunMark();
  env[RUN_MARK_ENV] = mark;
  const out = new CappedLines({
    maxBytes: opts.maxStdoutBytes ?? DEFAULT_STDOUT,
    onLine: opts.onStdoutLine,
    keep: opts.keepStdoutLine,
  });
  const err = new CappedLines({ maxBytes: opts.maxStderrBytes ?? DEFAULT_STDERR, onLine: opts.onStderrLine });
  const killGraceMs = opts.killGraceMs ?? 5000;
  const pipeGraceMs = opts.pipeGraceMs ?? 1000;

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

    let done = false;
    let stopReason: 'timeout' | 'aborted' | undefined;
    let exit: { code: number | null; signal: string | null } | undefined;
    let stdoutOpen = true;
    let stderrOpen = true;
    let killSent = false;
    const timers: NodeJS.Timeout[] = [];
    const pid = child.pid;
    if (pid !== undefined) trackRun(pid, mark);

    const finish = (result: SpawnResult) => {
      if (done) return;
      done = true;
      for (const t of timers) clearTimeout(t);
      opts.signal?.removeEventListener('abort', onAbort);
      if (pid !== undefined) {
        // A stopped run leaves nothing behind, including children that ignored TERM or left the group.
        if (stopReason) killRun(pid, mark, 'SIGKILL');
        liveRuns.delete(pid);
      }
      child.stdout?.destroy();
      child.stderr?.destroy();
      resolve(result);
    };

    const settleIfDone = () => {
      if (done || !exit || stdoutOpen || stderrOpen) return;
      settleNow();
    };
    const settleNow = () => {
      out.end();
      err.end();
      const fin: Finished = {
        stdoutLines: out.lines,
        stdout: out.text(),
        stderr: err.text(),
        stdoutTruncated: out.truncated,
        stderrTruncated: err.truncated,
        stdoutBytes: out.bytes,
        exitCode: exit?.code ?? null,
        signal: exit?.signal ?? null,
        durationMs: elapsed(),
      };
      // bwrap exits 1 with its own "bwrap: …" line when it cannot make the sandbox or exec the CLI.
      const refused = opts.sandbox && !stopReason && exit?.code === 1 ? bwrapError(fin.stderr) : undefined;
      if (refused)
        finish({ type: 'spawn_failed', message: refused, durationMs: fin.durationMs, sandbox: true });
      else if (stopReason === 'timeout') finish({ type: 'timeout', timeoutMs: opts.timeoutMs ?? 0, ...fin });
      else if (stopReason === 'aborted') finish({ type: 'aborted', ...fin });
      else finish({ type: 'exited', ...fin });
    };

    const stop = (reason: 'timeout' | 'aborted') => {
      // After the child exited, only pipes held by a grandchild remain: the run is over as it was.
      if (done || stopReason || exit) return;
      stopReason = reason;
      if (pid === undefined) return;
      termRun(opts.sandbox !== undefined, pid, mark, killRun);
      timers.push(
        setTimeout(() => {
          killSent = true;
          killRun(pid, mark, 'SIGKILL');
          // The group is dead now; pipes close at once unless something escaped the group.
          timers.push(setTimeout(settleNow, Math.min(pipeGraceMs, 500)));
        }, killGraceMs),
      );
    };
    const onAbort = () => stop('aborted');
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    if (opts.timeoutMs !== undefined && opts.timeoutMs > 0) {
      timers.push(setTimeout(() => stop('timeout'), opts.timeoutMs));
    }

    child.stdout?.on('data', (c: Buffer) => out.push(c));
    child.stderr?.on('data', (c: Buffer) => err.push(c));
    child.stdout?.once('close', () => {
      stdoutOpen = false;
      settleIfDone();
    });
    child.stderr?.once('close', () => {
      stderrOpen = false;
      settleIfDone();
    });
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      if (stdoutOpen || stderrOpen) {
        // A grandchild may hold the pipes open forever (a background server, a TERM-ignoring
        // helper). After a stop we wait for KILL; otherwise a short grace, then we let go.
        if (!stopReason) timers.push(setTimeout(settleNow, pipeGraceMs));
        else if (killSent) timers.push(setTimeout(settleNow, Math.min(pipeGraceMs, 500)));
      }
      settleIfDone();
    });

    // Spawn failures (ENOENT, EACCES, a missing cwd) arrive through execa's result, not 'exit'.
    sub.then(
      (r) => {
        if (done || exit || !r.failed) return;
        const code = (r.cause as NodeJS.ErrnoException | undefined)?.code ?? (r as { code?: string }).code;
        const message = r.shortMessage ?? r.message ?? 'could not start';
        if (code === 'ENOENT' && pid === undefined && opts.sandbox) {
          // bwrap itself went missing since the plan found it.
          finish({ type: 'spawn_failed', message, durationMs: elapsed(), sandbox: true });
        } else if (code === 'ENOENT' && pid === undefined) {
          finish({ type: 'not_found', file: opts.file, message, durationMs: elapsed() });
        } else if (pid === undefined) {
          finish({ type: 'spawn_failed', message, durationMs: elapsed() });
        }
      },
      (e: Error) => {
        if (!done && pid === undefined)
          finish({ type: 'spawn_failed', message: e.message, durationMs: elapsed() });
      },
    );
  });
}

function emptyFinished(durationMs: number): Finished {
  return {
    stdoutLines: [],
    stdout: '',
    stderr: '',
    stdoutTruncated: false,
    stderrTruncated: false,
    stdoutBytes: 0,
    exitCode: null,
    signal: null,
    durationMs,
  };
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

// What turns a started program's events into spawnProcess's one result: stdout and stderr through
// their byte caps, a timeout or abort as TERM then KILL of the group and the mark, a short grace
// for pipes a grandchild keeps open after the exit, and a result that settles exactly once. The
// events come from whatever started the program (execa in spawn.ts, or a launcher process:
// launcher/spawn-launched.ts); the program's pid may come after the run's timers started.
import { bwrapError } from '../core/sandbox.js';
import { CappedLines } from './lines.js';
import { killRun, trackRun, untrackGroup } from './run-groups.js';
import { termRun } from './sandbox-launch.js';
import type { Finished, SpawnOptions, SpawnResult } from './spawn-types.js';

const DEFAULT_STDOUT = 10 * 1024 * 1024;
const DEFAULT_STDERR = 1024 * 1024;

/** What the starting side reports, in the order it happens. */
export interface RunEvents {
  /** The program runs: its group leader's pid. */
  started(pid: number): void;
  stdout(chunk: Buffer): void;
  stderr(chunk: Buffer): void;
  stdoutClosed(): void;
  stderrClosed(): void;
  exited(code: number | null, signal: string | null): void;
  /** It did not start (or can no longer be followed): the result, unless the run settled already. */
  failed(result: SpawnResult): void;
}

export interface SettleContext {
  opts: SpawnOptions;
  mark: string;
  /** performance.now() when the run began. */
  startedAt: number;
  /** Let go of the pipes once the result is settled (a grandchild may still hold them). */
  dropPipes(): void;
  resolve(result: SpawnResult): void;
}

export function settleRun(ctx: SettleContext): RunEvents {
  const { opts, mark } = ctx;
  const elapsed = () => Math.round(performance.now() - ctx.startedAt);
  const out = new CappedLines({
    maxBytes: opts.maxStdoutBytes ?? DEFAULT_STDOUT,
    onLine: opts.onStdoutLine,
    keep: opts.keepStdoutLine,
  });
  const err = new CappedLines({ maxBytes: opts.maxStderrBytes ?? DEFAULT_STDERR, onLine: opts.onStderrLine });
  const killGraceMs = opts.killGraceMs ?? 5000;
  const pipeGraceMs = opts.pipeGraceMs ?? 1000;

  let done = false;
  let pid: number | undefined;
  let stopReason: 'timeout' | 'aborted' | undefined;
  let exit: { code: number | null; signal: string | null } | undefined;
  let stdoutOpen = true;
  let stderrOpen = true;
  let killSent = false;
  const timers: NodeJS.Timeout[] = [];

  const finish = (result: SpawnResult) => {
    if (done) return;
    done = true;
    for (const t of timers) clearTimeout(t);
    opts.signal?.removeEventListener('abort', onAbort);
    if (pid !== undefined) {
      // A stopped run leaves nothing behind, including children that ignored TERM or left the group.
      if (stopReason) killRun(pid, mark, 'SIGKILL');
      untrackGroup(pid);
    }
    ctx.dropPipes();
    ctx.resolve(result);
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

  // TERM now, KILL after the grace; from the stop, or from the start when the stop came first.
  const terminate = (p: number) => {
    termRun(opts.sandbox !== undefined, p, mark, killRun);
    timers.push(
      setTimeout(() => {
        killSent = true;
        killRun(p, mark, 'SIGKILL');
        // The group is dead now; pipes close at once unless something escaped the group.
        timers.push(setTimeout(settleNow, Math.min(pipeGraceMs, 500)));
      }, killGraceMs),
    );
  };
  const stop = (reason: 'timeout' | 'aborted') => {
    // After the child exited, only pipes held by a grandchild remain: the run is over as it was.
    if (done || stopReason || exit) return;
    stopReason = reason;
    if (pid !== undefined) terminate(pid);
  };
  const onAbort = () => stop('aborted');
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  if (opts.timeoutMs !== undefined && opts.timeoutMs > 0) {
    timers.push(setTimeout(() => stop('timeout'), opts.timeoutMs));
  }

  return {
    started(p) {
      pid = p;
      trackRun(p, mark);
      if (stopReason && !done) terminate(p);
    },
    stdout: (c) => out.push(c),
    stderr: (c) => err.push(c),
    stdoutClosed() {
      stdoutOpen = false;
      settleIfDone();
    },
    stderrClosed() {
      stderrOpen = false;
      settleIfDone();
    },
    exited(code, signal) {
      exit = { code, signal };
      if (stdoutOpen || stderrOpen) {
        // A grandchild may hold the pipes open forever (a background server, a TERM-ignoring
        // helper). After a stop we wait for KILL; otherwise a short grace, then we let go.
        if (!stopReason) timers.push(setTimeout(settleNow, pipeGraceMs));
        else if (killSent) timers.push(setTimeout(settleNow, Math.min(pipeGraceMs, 500)));
      }
      settleIfDone();
    },
    failed(result) {
      // Followed no longer (a launcher that died): nothing of the run may outlive it.
      if (pid !== undefined && !done) killRun(pid, mark, 'SIGKILL');
      finish({ ...result, durationMs: elapsed() });
    },
  };
}

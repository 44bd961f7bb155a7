// A long-lived child spoken to over stdin/stdout (a warm agent), started by spawn.ts's rules: argv
// only (no shell), an explicit environment without the nested-agent variables, the child leading
// its own process group so a stop kills everything it started (TERM, then KILL), and stderr kept
// only as a capped tail for error details. Unlike spawnProcess it hands back the live pipes. Its
// environment carries a run mark of its own (run-mark.ts) for the process's whole life: when the
// process ends, everything that carries the mark ends too, wherever it moved (a `setsid` helper),
// and the relay's watchdog knows the mark, so a relay killed with SIGKILL takes them along as well.
// Given a launcher (`agents.launcher`), the process starts from that small process instead, sandboxed
// or not (launcher/stdio-launched.ts), its pipes crossing the launcher's channel, and everything
// else (the group, the mark, the stop) is done from here by pid as before.
import { type ChildProcess, spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { bwrapError, type Launch, type Sandbox } from '../core/sandbox.js';
import type { GroupGuard } from './group-guard.js';
import type { Launcher } from './launcher/client.js';
import { type StartedPipes, type StdioLaunched, startStdioLaunched } from './launcher/stdio-launched.js';
import { newRunMark, RUN_MARK_ENV } from './run-mark.js';
import { launchIn, termRun } from './sandbox-launch.js';
import { killRun, NESTED_AGENT_ENV, trackGroup, untrackGroup } from './spawn.js';

export type { GroupGuard };

export interface StdioChildOptions {
  file: string;
  args: readonly string[];
  cwd?: string;
  env: Record<string, string>;
  /** How much of stderr's tail is kept for error details. */
  maxStderrBytes?: number;
  guard?: GroupGuard;
  /** Run inside this sandbox (the agent's `sandbox`); unavailable: nothing starts. */
  sandbox?: Sandbox;
  /**
   * Started from this launcher process, not this one; sandboxed too: the fourth pipe on which the
   * sandbox says it is made crosses the launcher's channel as the other three do.
   */
  launcher?: Launcher;
  /**
   * A warm agent: it runs at the agents' lower priority from its first instruction, through a
   * shell step before it where it can be (sandbox-launch.ts). Anything else started here (a user's
   * MCP server on the host) keeps the relay's priority.
   */
  lower?: boolean;
}

export interface Exit {
  exitCode: number | null;
  signal: string | null;
}

export interface StdioChild {
  pid: number;
  /** The run mark in its environment, inherited by everything it starts. */
  mark: string;
  stdin: Writable;
  stdout: Readable;
  /** Resolves once, when the process has exited. */
  exited: Promise<Exit>;
  /** The last bytes of stderr, for an error's detail (never shown raw to a chat). */
  stderrTail(): string;
  /** TERM to the whole group and the mark, KILL after `graceMs`; resolves when the leader exited. */
  stop(graceMs: number): Promise<Exit>;
}

export type StdioStart =
  | { type: 'started'; child: StdioChild }
  | { type: 'not_found'; file: string; message: string }
  /** `sandbox`: the sandbox could not be made, so the program did not run. */
  | { type: 'spawn_failed'; message: string; sandbox?: true };

/** The pipe the sandbox says it is made on (stdin, stdout, stderr, then this): core/sandbox.ts. */
const READY_FD = 3;

export function startStdioChild(opts: StdioChildOptions): Promise<StdioStart> {
  const env = { ...opts.env };
  for (const k of NESTED_AGENT_ENV) delete env[k];
  // Marked as a cold run is (run-mark.ts), set last, over anything inherited: the relay's control
  // socket refuses a caller that carries a mark, so a warm agent cannot drive the owner's controls
  // either; and a relay started inside an agent's run must not pass that run's mark on (ending this
  // process would end the run that started the relay).
  const mark = newRunMark();
  env[RUN_MARK_ENV] = mark;
  if (opts.cwd !== undefined && !isDirectory(opts.cwd)) {
    return Promise.resolve({ type: 'spawn_failed', message: `working folder ${opts.cwd} does not exist` });
  }
  // Sandboxed, the mark moves from bwrap's environment to the CLI's (sandbox-launch.ts), and a
  // lowered one lowers itself inside: that is the only way to reach the CLI's own session.
  const launched = launchIn(opts.sandbox, { file: opts.file, args: opts.args }, opts.cwd, env, {
    readyFd: READY_FD,
    lower: opts.lower === true,
  });
  if (!launched.ok) return Promise.resolve({ type: 'spawn_failed', message: launched.error, sandbox: true });
  const { launch, lowersItself } = launched;
  const sandboxed = opts.sandbox !== undefined;
  const start = opts.launcher
    ? startStdioLaunched(opts.launcher, launch, opts.cwd, env, mark, { readyFd: sandboxed })
    : startHere(launch, opts.cwd, env, sandboxed);
  return start.then((s): StdioStart | Promise<StdioStart> => {
    switch (s.type) {
      case 'started':
        return sandboxed
          ? startedIn(s.pipes, mark, opts, lowersItself)
          : { type: 'started', child: wrap(s.pipes, mark, opts, lowersItself) };
      case 'not_found':
        // Sandboxed, the program that is missing is bwrap itself (as in spawn.ts).
        return sandboxed
          ? { type: 'spawn_failed', message: s.message, sandbox: true }
          : { type: 'not_found', file: opts.file, message: s.message };
      case 'spawn_failed':
        return s;
    }
  });
}

/** The process started from this one, its pipes as the launcher's path hands them (StartedPipes). */
function startHere(
  launch: Launch,
  cwd: string | undefined,
  env: Record<string, string>,
  sandboxed: boolean,
): Promise<StdioLaunched> {
  let child: ChildProcess;
  try {
    child = spawn(launch.file, [...launch.args], {
      cwd,
      env,
      shell: false,
      detached: true,
      stdio: sandboxed ? ['pipe', 'pipe', 'pipe', 'pipe'] : ['pipe', 'pipe', 'pipe'],
    });
  } catch (e) {
    // A NUL byte in argv or env throws here and starts nothing.
    return Promise.resolve({ type: 'spawn_failed', message: (e as Error).message });
  }
  return new Promise((resolve) => {
    child.once('error', (e: NodeJS.ErrnoException) => {
      if (child.pid !== undefined) return;
      if (e.code === 'ENOENT') resolve({ type: 'not_found', file: launch.file, message: e.message });
      else resolve({ type: 'spawn_failed', message: e.message });
    });
    child.once('spawn', () => resolve({ type: 'started', pipes: pipesOf(child) }));
  });
}

/**
 * A sandboxed start, whichever way it started: started once the sandbox says it is made; when bwrap
 * exits before that, its own line says why (no user namespaces, a bind source that is gone…).
 */
async function startedIn(
  pipes: StartedPipes,
  mark: string,
  opts: StdioChildOptions,
  lowersItself: boolean,
): Promise<StdioStart> {
  const wrapped = wrap(pipes, mark, opts, lowersItself);
  if (await sandboxReady(pipes.ready)) return { type: 'started', child: wrapped };
  await wrapped.exited;
  const line = bwrapError(wrapped.stderrTail()) ?? wrapped.stderrTail().trim().slice(-300);
  return { type: 'spawn_failed', message: line || 'bwrap exited before starting the agent', sandbox: true };
}

/** True once the sandbox said it is made; false when the pipe closed first (bwrap gave up). */
function sandboxReady(ready: Readable | undefined): Promise<boolean> {
  if (!ready) return Promise.resolve(false);
  return new Promise((resolve) => {
    let said = false;
    ready.once('data', () => {
      said = true;
      resolve(true);
    });
    ready.once('close', () => resolve(said));
    ready.once('error', () => resolve(said));
    ready.resume();
  });
}

function pipesOf(child: ChildProcess): StartedPipes {
  return {
    pid: child.pid as number,
    stdin: child.stdin as Writable,
    stdout: child.stdout as Readable,
    stderr: child.stderr as Readable,
    ...(child.stdio[READY_FD] && { ready: child.stdio[READY_FD] as Readable }),
    exit: new Promise((resolve) => child.once('exit', (code, signal) => resolve({ exitCode: code, signal }))),
  };
}

function wrap(child: StartedPipes, mark: string, opts: StdioChildOptions, lowersItself: boolean): StdioChild {
  const { pid } = child;
  trackGroup(pid, mark);
  opts.guard?.watch(pid, mark, lowersItself);
  const max = opts.maxStderrBytes ?? 16 * 1024;
  let tail = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (c: string) => {
    tail = (tail + c).slice(-max);
  });
  // A write to a child that already died fails with EPIPE; the exit is reported through `exited`.
  child.stdin.on('error', () => {});
  const exited = child.exit.then((exit) => {
    // The leader is gone; anything it left in its group, or that carries its mark (moved out of
    // the group with setsid, ignoring TERM), is killed with it, so nothing lingers.
    killRun(pid, mark, 'SIGKILL');
    untrackGroup(pid);
    opts.guard?.forget(pid);
    return exit;
  });
  let stopping: Promise<Exit> | undefined;
  return {
    pid,
    mark,
    stdin: child.stdin,
    stdout: child.stdout,
    exited,
    stderrTail: () => tail,
    stop(graceMs) {
      stopping ??= (async () => {
        termRun(opts.sandbox !== undefined, pid, mark, killRun);
        const timer = setTimeout(() => killRun(pid, mark, 'SIGKILL'), graceMs);
        const exit = await exited;
        clearTimeout(timer);
        return exit;
      })();
      return stopping;
    },
  };
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

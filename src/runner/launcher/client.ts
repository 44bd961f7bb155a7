// The relay's side of the launcher (launcher-process.ts): startLauncher() forks it once, while the
// relay is small, and launch() asks it to start a program. A launch answers with a value, never a
// throw: started (a handle), not_found, spawn_failed, or launcher_failed. A launcher that dies ends
// every handle still open with `launcher_died` (their process groups are killed: nobody can read
// their output any more), and the next launch forks a new one. One that dies before it is ready is
// not forked again at once: launches meanwhile fail fast, with a delay doubling per failed start
// (from 250 ms to 30 s), so a launcher that cannot load does not fork the grown relay per launch.
//
// The environment (a run's tool token in it) crosses only the private IPC pipe. The launcher's own
// environment is PATH alone: it needs nothing else, and holds nothing worth leaking.
import { type ChildProcess, fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ownFile } from '../../own-files.js';
import { signalMarked } from '../run-mark.js';
import type { FromLauncher, ToLauncher } from './protocol.js';

export interface LaunchRequest {
  /** The program (looked up on `env.PATH` when it has no slash). */
  file: string;
  args: readonly string[];
  cwd?: string;
  /** The child's whole environment: nothing is inherited from the relay or the launcher. */
  env: Record<string, string>;
  /** A piped stdin (the handle's write/end); without it stdin is ignored. */
  stdin?: boolean;
  /**
   * The run's mark (run-mark.ts), if it has one: when the launcher or the relay goes, what the run
   * moved out of its group (setsid) is found and killed by it.
   */
  mark?: string;
  /**
   * A fourth pipe, read from the program's fd 3 (`onFd3`, `onFd3End`): a sandboxed warm start's
   * word that bwrap made the sandbox (spawn-stdio.ts). `closed` waits for its end too.
   */
  fd3?: boolean;
  /** The program runs: called before any of its output, with the handle launch() also returns. */
  onStart?: (handle: LaunchHandle) => void;
  onStdout?: (chunk: Buffer) => void;
  onStderr?: (chunk: Buffer) => void;
  onStdoutEnd?: () => void;
  onStderrEnd?: () => void;
  onFd3?: (chunk: Buffer) => void;
  onFd3End?: () => void;
  /** The exit as the launcher saw it, as soon as it arrives (pipes may still be open), or its death. */
  onExit?: (exit: LaunchExit) => void;
}

export type LaunchExit =
  | { type: 'exited'; code: number | null; signal: string | null }
  /** The launcher went away while the program ran: its group was killed, its exit is unknown. */
  | { type: 'launcher_died'; message: string };

export interface LaunchHandle {
  /** The program's pid, which is also its process group's id (kill `-pid` for the group). */
  pid: number;
  /** Written to the program's stdin (a launch with `stdin: true`); dropped once it is gone. */
  write(data: string | Uint8Array): void;
  end(): void;
  /** The exit, or `launcher_died`. */
  exit: Promise<LaunchExit>;
  /** The same, once its pipes closed as well (or the launcher died). */
  closed: Promise<LaunchExit>;
  /** Stop waiting for pipes a grandchild holds open: the launcher closes its ends. */
  release(): void;
}

export type LaunchStart =
  | { type: 'started'; handle: LaunchHandle }
  | { type: 'not_found'; file: string; message: string }
  /** `code`: the errno name (EACCES…) when there is one. */
  | { type: 'spawn_failed'; code?: string; message: string }
  | { type: 'launcher_failed'; message: string };

export interface Launcher {
  launch(req: LaunchRequest): Promise<LaunchStart>;
  /** The launcher's pid while one runs. */
  pid(): number | undefined;
  /** Lets the launcher go; it kills what it still runs and exits. Resolves once it exited. */
  stop(): Promise<void>;
}

interface Entry {
  req: LaunchRequest;
  started: (s: LaunchStart) => void;
  pid?: number;
  exit?: LaunchExit;
  open: number;
  exited: (e: LaunchExit) => void;
  closed: (e: LaunchExit) => void;
}

/** The script next to this file: compiled JavaScript in dist/, TypeScript when run from src/. */
export function launcherScript(): string {
  const js = fileURLToPath(ownFile('runner/launcher/launcher-process.js'));
  return existsSync(js) ? js : fileURLToPath(ownFile('runner/launcher/launcher-process.ts'));
}

/** Each stream's data and end messages, and the request's callback for each. */
const ON_DATA = { stdout: 'onStdout', stderr: 'onStderr', fd3: 'onFd3' } as const;
const ON_END = { stdout_end: 'onStdoutEnd', stderr_end: 'onStderrEnd', fd3_end: 'onFd3End' } as const;

const FIRST_RETRY_MS = 250;
const LAST_RETRY_MS = 30_000;

export interface LauncherOptions {
  /** The launcher's script (tests); by default the one next to this file. */
  script?: string;
  /** The first and the longest delay before a launcher that failed to start is forked again. */
  retryMs?: { first: number; last: number };
  /**
   * Called once per launcher that went away without stop() (its exit code or signal, nothing else),
   * so the relay can say so; the next launch forks a new one.
   */
  onDied?: (message: string) => void;
}

export function startLauncher(opts: LauncherOptions = {}): Launcher {
  const retry = opts.retryMs ?? { first: FIRST_RETRY_MS, last: LAST_RETRY_MS };
  const script = opts.script ?? launcherScript();
  // Failed starts in a row, and when the next fork may be tried.
  let failedStarts = 0;
  let retryAt = 0;
  const entries = new Map<number, Entry>();
  let nextId = 1;
  let proc: ChildProcess | undefined;
  let ready: Promise<boolean> = Promise.resolve(false);
  // stop() was called: the launcher's exit is expected, not a death to report.
  let stopping = false;

  // The channel keeps the relay alive only while something runs through it.
  const refresh = () => {
    if (entries.size > 0) proc?.channel?.ref();
    else proc?.channel?.unref();
  };

  const died = (p: ChildProcess, message: string) => {
    if (proc !== p) return;
    proc = undefined;
    if (!stopping) opts.onDied?.(message);
    for (const [id, e] of entries) {
      entries.delete(id);
      if (e.pid === undefined) {
        // Asked, not answered: a child may have started all the same; its mark finds it.
        if (e.req.mark) signalMarked(e.req.mark, 'SIGKILL');
        e.started({ type: 'launcher_failed', message });
        continue;
      }
      try {
        process.kill(-e.pid, 'SIGKILL');
      } catch {
        // ESRCH: the group is gone already.
      }
      if (e.req.mark) signalMarked(e.req.mark, 'SIGKILL');
      const end: LaunchExit = { type: 'launcher_died', message };
      if (!e.exit) e.req.onExit?.(end);
      e.exited(end);
      e.closed(end);
    }
  };

  const onMessage = (m: FromLauncher) => {
    if (m.type === 'ready') return;
    const e = entries.get(m.id);
    if (!e) return;
    switch (m.type) {
      case 'spawned': {
        e.pid = m.pid;
        const handle = handleOf(m.id, e);
        e.req.onStart?.(handle);
        e.started({ type: 'started', handle });
        return;
      }
      case 'failed':
        entries.delete(m.id);
        refresh();
        if (m.code === 'ENOENT') e.started({ type: 'not_found', file: e.req.file, message: m.message });
        else e.started({ type: 'spawn_failed', code: m.code, message: m.message });
        return;
      case 'stdout':
      case 'stderr':
      case 'fd3':
        e.req[ON_DATA[m.type]]?.(Buffer.from(m.data.buffer, m.data.byteOffset, m.data.byteLength));
        return;
      case 'stdout_end':
      case 'stderr_end':
      case 'fd3_end':
        e.req[ON_END[m.type]]?.();
        settle(m.id, e, -1);
        return;
      case 'exit':
        e.exit = { type: 'exited', code: m.code, signal: m.signal };
        e.req.onExit?.(e.exit);
        e.exited(e.exit);
        settle(m.id, e, 0);
        return;
    }
  };

  const settle = (id: number, e: Entry, opened: number) => {
    e.open += opened;
    if (e.open > 0 || !e.exit) return;
    entries.delete(id);
    refresh();
    e.closed(e.exit);
  };

  const post = (m: ToLauncher) => {
    // A closed channel: the launcher's exit ends everything that waits on it (died above).
    if (proc?.connected) proc.send(m, undefined, {}, () => {});
  };

  const handleOf = (id: number, e: Entry): LaunchHandle => ({
    pid: e.pid as number,
    write: (data) => {
      if (entries.has(id))
        post({ type: 'stdin', id, data: typeof data === 'string' ? Buffer.from(data) : data });
    },
    end: () => {
      if (entries.has(id)) post({ type: 'stdin_end', id });
    },
    exit: new Promise((r) => {
      e.exited = r;
    }),
    closed: new Promise((r) => {
      e.closed = r;
    }),
    release: () => {
      if (entries.has(id)) post({ type: 'release', id });
    },
  });

  const spawnLauncher = () => {
    const p = fork(script, [], {
      // From the sources (tests), node strips the types; the flag is needed before Node 22.18.
      execArgv: script.endsWith('.ts') ? ['--experimental-strip-types'] : [],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      // Its own group: a Ctrl-C at the relay's terminal reaches the relay, which decides.
      detached: true,
    });
    proc = p;
    p.unref();
    ready = new Promise<boolean>((resolve) => {
      p.once('message', (m: FromLauncher) => resolve(m.type === 'ready'));
      p.once('exit', () => resolve(false));
      p.once('error', () => resolve(false));
    });
    p.on('message', onMessage);
    p.once('exit', (code, signal) => died(p, `the launcher exited (${signal ?? `code ${code}`})`));
    // 'error' after a start is a failed signal or send, not a death (its 'exit' says that); a
    // listener stays, so a second one never throws in the relay.
    p.on('error', (err) => {
      if (p.pid === undefined) died(p, `the launcher failed: ${err.message}`);
    });
    void ready.then((ok) => {
      if (ok) failedStarts = 0;
      else {
        retryAt = Date.now() + Math.min(retry.last, retry.first * 2 ** failedStarts);
        failedStarts++;
      }
      refresh();
    });
  };

  spawnLauncher();

  return {
    pid: () => proc?.pid,
    async launch(req) {
      // After stop() nothing may fork a launcher again: it would outlive the relay's shutdown.
      if (stopping) return { type: 'launcher_failed', message: 'the launcher was stopped' };
      if (!proc && Date.now() < retryAt)
        return {
          type: 'launcher_failed',
          message: `the launcher could not start; next try in ${retryAt - Date.now()} ms`,
        };
      if (!proc) spawnLauncher();
      if (!(await ready) || !proc?.connected)
        return { type: 'launcher_failed', message: 'the launcher is not running' };
      const id = nextId++;
      return new Promise<LaunchStart>((started) => {
        const open = req.fd3 ? 3 : 2;
        const entry: Entry = { req, started, open, exited: () => {}, closed: () => {} };
        entries.set(id, entry);
        refresh();
        post({
          type: 'spawn',
          id,
          file: req.file,
          args: [...req.args],
          cwd: req.cwd,
          env: req.env,
          stdin: req.stdin === true,
          mark: req.mark,
          ...(req.fd3 && { fd3: true }),
        });
      });
    },
    async stop() {
      stopping = true;
      const p = proc;
      if (!p || p.exitCode !== null || p.signalCode !== null) return;
      const gone = new Promise<void>((r) => p.once('exit', () => r()));
      // Held until it exited: a caller awaiting stop() must not see this process end first.
      p.ref();
      if (p.connected) p.disconnect();
      else p.kill('SIGKILL');
      await gone;
    },
  };
}

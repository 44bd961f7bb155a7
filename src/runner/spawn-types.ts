// The contract of spawnProcess (spawn.ts): its options and its result. Apart so the state machine
// that settles a run (run-settle.ts) and the ways a run starts (execa here, or a launcher process:
// launcher/spawn-launched.ts) share them without importing each other.
import type { Sandbox } from '../core/sandbox.js';
import type { Launcher } from './launcher/client.js';

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
  /**
   * Start the program from this launcher process instead of this one (launcher/client.ts), so the
   * fork does not hold this process's event loop. Off unless given; the result is the same.
   */
  launcher?: Launcher;
}

export interface Finished {
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
  /**
   * `sandbox`: the sandbox could not be made, so the program did not run. Through a launcher, also
   * a launcher that could not start or died while the program ran (its group was killed).
   */
  | {
      type: 'spawn_failed';
      message: string;
      durationMs: number;
      sandbox?: true;
      /** `died`: the program had started, and the launcher it ran from went away mid-run. */
      launcher?: 'died';
    };

export function emptyFinished(durationMs: number): Finished {
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

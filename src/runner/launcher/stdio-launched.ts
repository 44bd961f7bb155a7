// A warm agent's long-lived process (spawn-stdio.ts) started from the launcher (client.ts) instead of
// the relay: its stdin, stdout and stderr become streams here, fed by and feeding the launcher's
// channel, so the drivers read and write them exactly as they do a child's own pipes. The group,
// the run mark and the stop stay with spawn-stdio.ts, which kills by pid from this process. A
// sandboxed start's fourth pipe (fd 3, where the sandbox says it is made) crosses the same way.
import { PassThrough, type Readable, Writable } from 'node:stream';
import type { Launch } from '../../core/sandbox.js';
import type { LaunchExit, Launcher } from './client.js';

/** A started process's pipes and exit, whoever started it (spawn-stdio.ts wraps either kind). */
export interface StartedPipes {
  pid: number;
  stdin: Writable;
  stdout: Readable;
  stderr: Readable;
  /** The program's fd 3, when one was asked for (`readyFd`): a sandbox's word that it is made. */
  ready?: Readable;
  exit: Promise<{ exitCode: number | null; signal: string | null }>;
}

export type StdioLaunched =
  | { type: 'started'; pipes: StartedPipes }
  | { type: 'not_found'; file: string; message: string }
  | { type: 'spawn_failed'; message: string };

/** A launcher that died took the process with it (the client killed its group): say it so. */
function exitOf(e: LaunchExit): { exitCode: number | null; signal: string | null } {
  return e.type === 'exited' ? { exitCode: e.code, signal: e.signal } : { exitCode: null, signal: 'SIGKILL' };
}

export async function startStdioLaunched(
  launcher: Launcher,
  launch: Launch,
  cwd: string | undefined,
  env: Record<string, string>,
  mark: string,
  opts: { readyFd?: boolean } = {},
): Promise<StdioLaunched> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const ready = opts.readyFd ? new PassThrough() : undefined;
  const s = await launcher.launch({
    file: launch.file,
    args: launch.args,
    ...(cwd !== undefined && { cwd }),
    env,
    stdin: true,
    mark,
    onStdout: (c) => stdout.write(c),
    onStderr: (c) => stderr.write(c),
    onStdoutEnd: () => stdout.end(),
    onStderrEnd: () => stderr.end(),
    ...(ready && { fd3: true, onFd3: (c: Buffer) => ready.write(c), onFd3End: () => ready.end() }),
    // A launcher that died sends no ends: the streams end with it.
    onExit: (e) => {
      if (e.type === 'launcher_died') {
        stdout.end();
        stderr.end();
        ready?.end();
      }
    },
  });
  switch (s.type) {
    case 'started': {
      const { handle } = s;
      const stdin = new Writable({
        write(chunk: Buffer, _encoding, done) {
          handle.write(chunk);
          done();
        },
        final(done) {
          handle.end();
          done();
        },
      });
      return {
        type: 'started',
        pipes: {
          pid: handle.pid,
          stdin,
          stdout,
          stderr,
          ...(ready && { ready }),
          exit: handle.exit.then(exitOf),
        },
      };
    }
    case 'not_found':
      return s;
    case 'spawn_failed':
      return { type: 'spawn_failed', message: s.message };
    case 'launcher_failed':
      return { type: 'spawn_failed', message: `launcher: ${s.message}` };
  }
}

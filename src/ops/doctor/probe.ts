// The dry probe: `<command> --version` with a short time limit, to show a CLI is installed and
// starts. It goes through the one spawn helper (argv, no shell, explicit env, group kill on timeout);
// the function type lets the doctor be driven the same way in tests.
import { spawnProcess } from '../../runner/spawn.js';

export type ProbeResult =
  | { type: 'exited'; code: number | null; signal: string | null; stdout: string; stderr: string }
  | { type: 'timeout' }
  | { type: 'spawn_error'; code: string; message: string };

export type Probe = (
  argv: readonly string[],
  opts: { env: Record<string, string>; cwd: string; timeoutMs: number },
) => Promise<ProbeResult>;

const CAP = 16 * 1024;

export const probeCommand: Probe = async (argv, opts) => {
  const [file, ...args] = argv as [string, ...string[]];
  const r = await spawnProcess({
    file,
    args,
    cwd: opts.cwd,
    env: opts.env,
    timeoutMs: opts.timeoutMs,
    maxStdoutBytes: CAP,
    maxStderrBytes: CAP,
    killGraceMs: 500,
  });
  switch (r.type) {
    case 'exited':
      return { type: 'exited', code: r.exitCode, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
    case 'timeout':
    case 'aborted':
      return { type: 'timeout' };
    case 'not_found':
      return { type: 'spawn_error', code: 'ENOENT', message: r.message };
    case 'spawn_failed':
      return { type: 'spawn_error', code: 'ERROR', message: r.message };
  }
};

// The dry probe: `<command> --version` with a short time limit, to show a CLI is installed and
// starts. Behind a small function type so doctor tests can run real fake CLIs through it.
import { spawn } from 'node:child_process';

export type ProbeResult =
  | { type: 'exited'; code: number | null; signal: string | null; stdout: string; stderr: string }
  | { type: 'timeout' }
  | { type: 'spawn_error'; code: string; message: string };

export type Probe = (
  argv: readonly string[],
  opts: { env: Record<string, string>; cwd: string; timeoutMs: number },
) => Promise<ProbeResult>;

const CAP = 16 * 1024;

/**
 * Runs argv without a shell, stdin closed, in its own process group that is killed on timeout.
 * (The relay's runner has the full spawn helper; a version probe needs only this much.)
 */
export const probeCommand: Probe = (argv, opts) =>
  new Promise((resolve) => {
    const [bin, ...args] = argv as [string, ...string[]];
    const child = spawn(bin, args, {
      cwd: opts.cwd,
      env: opts.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      shell: false,
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    let settled = false;
    const settle = (r: ProbeResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(r);
    };
    const timer = setTimeout(() => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
      settle({ type: 'timeout' });
    }, opts.timeoutMs);
    child.stdout.on('data', (d: Buffer) => {
      if (stdout.length < CAP) stdout += d.toString('utf8');
    });
    child.stderr.on('data', (d: Buffer) => {
      if (stderr.length < CAP) stderr += d.toString('utf8');
    });
    child.on('error', (err: NodeJS.ErrnoException) =>
      settle({ type: 'spawn_error', code: err.code ?? 'ERROR', message: err.message }),
    );
    child.on('close', (code, signal) => settle({ type: 'exited', code, signal, stdout, stderr }));
  });

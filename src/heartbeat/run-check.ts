// The real pre-check runner, on the one spawn helper: argv (no shell), an explicit environment,
// stdin ignored, its own process group killed (TERM, then KILL) at the time limit, output capped.
// Custom commands' scripts (queue/host-scripts.ts) run on it too.
import type { Launcher } from '../runner/launcher/client.js';
import { spawnProcess } from '../runner/spawn.js';
import type { CheckResult, RunCheck } from './check.js';

// More than enough for "3 new mails: …"; the prompt keeps less still (prompt.MAX_CHECK_OUTPUT_CHARS).
const MAX_STDOUT_BYTES = 64 * 1024;
const MAX_STDERR_BYTES = 16 * 1024;

export interface RunCheckOptions {
  /** The whole environment of the check (nothing else is inherited). */
  env: Record<string, string>;
  /** Working folder, normally the agent's. */
  cwd?: string;
  /** Between TERM and KILL after the time limit. */
  killGraceMs?: number;
  /** Aborted: the running check's group is stopped too (the relay shutting down). */
  signal?: AbortSignal;
  /**
   * The relay's launcher (`agents.launcher`): the check starts from it, as an agent does, so the
   * relay's loop is not held by a fork of the whole relay while webhooks wait. A launcher that dies
   * mid-check makes it `failed` ("launcher: …"), never a hang.
   */
  launcher?: Launcher;
}

export function createRunCheck(o: RunCheckOptions): RunCheck {
  return async (argv, timeoutMs): Promise<CheckResult> => {
    const [file, ...args] = argv;
    if (!file) return { type: 'failed', message: 'the check command is empty' };
    const r = await spawnProcess({
      file,
      args,
      env: o.env,
      cwd: o.cwd,
      timeoutMs,
      maxStdoutBytes: MAX_STDOUT_BYTES,
      maxStderrBytes: MAX_STDERR_BYTES,
      killGraceMs: o.killGraceMs ?? 2000,
      ...(o.signal && { signal: o.signal }),
      ...(o.launcher && { launcher: o.launcher }),
    });
    switch (r.type) {
      case 'exited':
        return { type: 'ok', exitCode: r.exitCode, stdout: r.stdout, truncated: r.stdoutTruncated };
      case 'timeout':
        return { type: 'timeout', timeoutMs };
      case 'aborted':
        return { type: 'failed', message: 'it was stopped' };
      case 'not_found':
        return { type: 'failed', message: `${file} was not found` };
      case 'spawn_failed':
        return { type: 'failed', message: r.message };
    }
  };
}

// What a check sees of the relay's environment: enough to find programs and read the user's
// config files, nothing else unless the config adds it (agent.env).
const PASS = ['PATH', 'HOME', 'USER', 'LOGNAME', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'TMPDIR', 'SHELL'];

export function checkEnv(
  from: NodeJS.ProcessEnv,
  extra: Record<string, string> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const k of PASS) {
    const v = from[k];
    if (v !== undefined) env[k] = v;
  }
  return { ...env, ...extra };
}

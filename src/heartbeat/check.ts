// A schedule's pre-check: a command that runs first, cheaply, and wakes the agent only when it exits
// 0 and prints something; what it printed goes to the agent with the prompt. Exiting non-zero or
// printing nothing both mean "nothing to do" (like grep finding no match). A check that cannot run
// or runs past its time limit is a problem with the setup, reported like a failed run.
import type { FailureReason } from './prompt.js';

export type CheckResult =
  /** The process ended on its own (any exit code; null when a signal ended it). */
  | { type: 'ok'; exitCode: number | null; stdout: string; truncated: boolean }
  | { type: 'timeout'; timeoutMs: number }
  | { type: 'failed'; message: string };

/** Runs argv (no shell) with a time limit; the process group is killed past it. */
export type RunCheck = (argv: readonly string[], timeoutMs: number) => Promise<CheckResult>;

export type CheckGate =
  | { type: 'wake'; output: string }
  | { type: 'quiet'; reason: 'exit_code' | 'no_output'; exitCode: number | null }
  | { type: 'error'; reason: FailureReason };

export function checkGate(r: CheckResult): CheckGate {
  switch (r.type) {
    case 'ok':
      if (r.exitCode !== 0) return { type: 'quiet', reason: 'exit_code', exitCode: r.exitCode };
      if (r.stdout.trim() === '') return { type: 'quiet', reason: 'no_output', exitCode: 0 };
      return { type: 'wake', output: r.stdout };
    case 'timeout':
      return { type: 'error', reason: { type: 'check_timeout', seconds: Math.round(r.timeoutMs / 1000) } };
    case 'failed':
      return { type: 'error', reason: { type: 'check_failed', message: r.message } };
  }
}

// How every warm driver starts its long-lived process: the argv it built (program first) in the
// configured folder and environment, through the one stdio spawn helper (runner/spawn-stdio.ts).
// A start that fails comes back as the two things a driver needs of it: the fault it keeps (the
// process never ran, so nothing will be read) and the result the turn or open reports.
import { type Exit, type GroupGuard, type StdioChild, startStdioChild } from '../runner/spawn-stdio.js';
import { type ErrorResult, errorResult } from './results.js';
import type { DriverFault, DriverProcess } from './types.js';

/** How long start-up, the protocol's hello and opening a session may take (`startTimeoutMs`). */
export const START_TIMEOUT_MS = 60_000;
/** After a stop (timeout, /stop), how long a turn may take to end before the process is killed. */
export const CANCEL_GRACE_MS = 5_000;
/** After TERM to a process group, how long before KILL. */
export const KILL_GRACE_MS = 2_000;

export type WarmStart =
  | { type: 'started'; child: StdioChild }
  | { type: 'failed'; result: ErrorResult; fault?: DriverFault };

/** A driver's options as far as starting goes: its name in error messages, folder, environment, guard. */
export interface WarmStartOptions {
  name: string;
  process: Pick<DriverProcess, 'cwd' | 'env' | 'sandbox' | 'launcher'>;
  guard?: GroupGuard | undefined;
}

/** `argv`: program first, never passed through a shell; `t0`: when the open began, for the result. */
export async function startWarmChild(
  o: WarmStartOptions,
  argv: readonly string[],
  t0: number,
): Promise<WarmStart> {
  const [file, ...args] = argv;
  // Nothing was started: no fault to keep, the next open may have a command.
  if (!file)
    return {
      type: 'failed',
      result: errorResult(o.name, 'exit', t0, { detail: 'no agent command configured' }),
    };
  const s = await startStdioChild({
    file,
    args,
    cwd: o.process.cwd,
    env: o.process.env,
    lower: true,
    ...(o.guard ? { guard: o.guard } : {}),
    ...(o.process.sandbox ? { sandbox: o.process.sandbox } : {}),
    ...(o.process.launcher && { launcher: o.process.launcher }),
  });
  switch (s.type) {
    case 'started':
      return s;
    case 'not_found':
      return {
        type: 'failed',
        fault: { type: 'start_failed', detail: s.message },
        result: errorResult(o.name, 'not_installed', t0, { detail: `"${file}" was not found on PATH` }),
      };
    case 'spawn_failed':
      return {
        type: 'failed',
        fault: { type: 'start_failed', detail: s.message },
        // A sandbox that could not be made is said as such, never run without it.
        result: errorResult(o.name, s.sandbox ? 'sandbox' : 'exit', t0, { detail: s.message }),
      };
  }
}

/**
 * Ends a live process the polite way: end of input, which every warm CLI takes as its client
 * leaving (an idle one exits 0), then TERM and KILL to the whole group if it lingers past `graceMs`.
 */
export async function endChild(child: StdioChild, graceMs: number): Promise<Exit> {
  child.stdin.end();
  const quick = await Promise.race([child.exited, delay(graceMs)]);
  return quick ?? (await child.stop(graceMs));
}

/** Resolves undefined after `n` ms, without keeping the relay alive. */
export const delay = (n: number) => new Promise<undefined>((r) => setTimeout(() => r(undefined), n).unref());

// Warm agent processes run at a lower CPU priority (nice 10) than the relay. A CLI's start-up is
// seconds of CPU (claude 1-3 s), and a burst starts several at once on a machine that may have two
// cores; at the same priority they take the CPU the relay needs to answer webhooks (Twilio waits for
// each 200). bench/warm-nice.bench.mjs measured it (docs/performance.md). Set once, right after the
// spawn, before the CLI has loaded: its helpers and the tools it runs inherit it, and an unprivileged
// process cannot raise a priority back, so the agent keeps it for its life. On an idle machine a
// lower priority costs nothing; under load the relay's answers come first.
import { setPriority } from 'node:os';
import type { GroupGuard } from './spawn-stdio.js';

export const AGENT_NICE = 10;

/**
 * The pool's guard, lowering each process it is told about: every warm driver hands its new
 * process to the guard as it spawns, so this is the one place for it, whichever driver started it.
 */
export function lowered(
  guard: GroupGuard | undefined,
  set: (pid: number, priority: number) => void = setPriority,
): GroupGuard {
  return {
    watch(pid, mark) {
      try {
        set(pid, AGENT_NICE);
      } catch {
        // Not allowed or not supported here: the process runs at the relay's priority.
      }
      // The run mark goes on to the watchdog: it ends what the process moved out of its group.
      guard?.watch(pid, mark);
    },
    forget(pid) {
      guard?.forget(pid);
    },
  };
}

// Warm agent processes run at a lower CPU priority (nice 10) than the relay. A CLI's start-up is
// seconds of CPU (claude 1-3 s), and a burst starts several at once on a machine that may have two
// cores; at the same priority they take the CPU the relay needs to answer webhooks (Twilio waits for
// each 200). bench/warm-nice.bench.mjs and the burst bench measured it (docs/performance.md). Set
// once, right after the spawn, before the CLI has loaded: its helpers and the tools it runs inherit
// it, and an unprivileged process cannot raise a priority back, so the agent keeps it for its life.
// On an idle machine a lower priority costs nothing; under load the relay's answers come first.
//
// Two settings, because one is not enough on Linux. Each agent is started in a session of its own
// (setsid, so its whole group can be stopped), and with the kernel's autogroup scheduling on (the
// default on most distributions, `/proc/sys/kernel/sched_autogroup_enabled`) each session is its
// own scheduling group: the CPU is shared first between groups, each at the weight of its
// autogroup's nice, and a task's own nice only weighs inside its group. A process's nice 10 alone
// then changes nothing against the relay: 16 agents in 16 sessions take 16 shares to the relay's
// one. So the agent's session is lowered too (`/proc/<pid>/autogroup`; raising it needs no
// privilege, like raising a nice). Where autogroup is off or the relay runs in a cgroup of its own
// (a systemd service, a container), the file is missing or not used and the plain nice does the job.
//
// On Linux an agent lowers itself as it starts instead, through a shell step before the CLI
// (core/lowering-shell.ts, with AGENT_NICE from here; runner/sandbox-launch.ts): from its first
// instruction rather than from when the relay has its pid, and inside a sandbox, where bwrap starts
// the CLI in yet another session, which a write from here cannot reach. `lower` is for the rest.
//
// The kernel takes one autogroup change per 100 ms, machine-wide, from a process without
// CAP_SYS_ADMIN (proc_sched_autogroup_set_nice; EAGAIN otherwise), which is every relay not run as
// root: in a burst most first writes are refused. So the writes go one at a time, and a refused one
// is tried again after the 100 ms, for up to about 5 s (a CLI's start-up is 1-3 s of CPU; a group
// lowered late still lowers the rest of its life).
import { writeFile } from 'node:fs/promises';
import { setPriority } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { GroupGuard } from './group-guard.js';

export const AGENT_NICE = 10;

/** Between tries of a refused autogroup write: the kernel's 100 ms, and a little more. */
export const GROUP_RETRY_MS = 110;
/** Tries of one autogroup write: about 5 s of them. */
export const GROUP_TRIES = 45;

/** How a priority is lowered: both settings, each allowed to fail on its own. */
export type Lowering = {
  nice: (pid: number, priority: number) => void;
  /** A write to /proc, off the event loop like the relay's other file writes during a run. */
  autogroup: (pid: number, priority: number) => Promise<void>;
  /** The pause before a refused write's next try. */
  wait: (ms: number) => Promise<void>;
};

const system: Lowering = {
  nice: setPriority,
  autogroup: (pid, priority) => writeFile(`/proc/${pid}/autogroup`, String(priority)),
  // Unref'd: a retry never keeps a stopping relay alive.
  wait: (ms) => sleep(ms, undefined, { ref: false }),
};

/** The autogroup writes, one after another (the kernel takes one per 100 ms anyway). */
let groupWrites: Promise<void> = Promise.resolve();

/**
 * Lowers a process and its session's scheduling group; what is refused or missing is left as it
 * is. The group's write settles later: the promise is for tests, callers need not wait for it.
 */
export function lower(pid: number, how: Lowering = system): Promise<void> {
  try {
    how.nice(pid, AGENT_NICE);
  } catch {
    // Not allowed or not supported here: the process runs at the relay's priority.
  }
  const write = groupWrites.then(() => lowerGroup(pid, how));
  groupWrites = write;
  return write;
}

/**
 * Tries the group's write until it takes, the kernel says anything but "not now" (EAGAIN), or the
 * tries run out. Anything else ends it: no autogroup here (another OS, a kernel without it, /proc
 * not mounted), or the process gone (ENOENT, ESRCH); the nice is then all there is.
 */
async function lowerGroup(pid: number, how: Lowering): Promise<void> {
  for (let tried = 1; ; tried++) {
    try {
      await how.autogroup(pid, AGENT_NICE);
      return;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EAGAIN' || tried >= GROUP_TRIES) return;
    }
    await how.wait(GROUP_RETRY_MS);
  }
}

/**
 * The pool's guard, lowering each process it is told about: every warm driver hands its new
 * process to the guard as it spawns, so this is the one place for it, whichever driver started it.
 */
export function lowered(guard: GroupGuard | undefined, how: Lowering = system): GroupGuard {
  return {
    watch(pid, mark, lowersItself) {
      // A CLI that lowers itself (sandbox-launch.ts) is left to it: this write would take the
      // kernel's one autogroup change per 100 ms that its own step needs (and sandboxed, `pid` is
      // bwrap, in another session than the CLI).
      if (!lowersItself) void lower(pid, how);
      // The run mark goes on to the watchdog: it ends what the process moved out of its group.
      guard?.watch(pid, mark);
    },
    forget(pid) {
      guard?.forget(pid);
    },
  };
}

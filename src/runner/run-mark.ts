// Finding every process a run started, wherever it moved. Killing the child's process group misses a
// descendant that left it: a CLI tool started with `setsid` (or node's `detached`, or a daemonising
// server) has its own session and group, and survived a timeout or /stop. So each run's
// environment carries a unique mark, inherited by everything the run starts, and a stop also ends
// every process whose environment (/proc/<pid>/environ, as it was at exec) holds that mark.
//
// Why a mark in the environment rather than a cgroup: a cgroup catches even a process that clears
// its environment, but creating one needs a delegated, writable cgroup v2 subtree, which a relay run
// by a plain user, in a container or under a default systemd --user unit does not have; the mark
// needs no privilege and works everywhere Linux has /proc. What it misses: a process started with
// an emptied environment (`env -i`), and anything on a system without /proc (macOS, the BSDs),
// where only the process group is killed. docs/operations.md says so.

import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';

/** The variable that marks a run's processes. Its value is unique per run. */
export const RUN_MARK_ENV = 'AGENTWIRE_RUN';

export const newRunMark = (): string => randomUUID();

/** A mark as newRunMark makes it: the only form the watchdog's script accepts (reaper.ts). */
export const isRunMark = (v: string): boolean =>
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(v);

/** Whether this system lets us read other processes' environments (Linux /proc). */
let procWorks: boolean | undefined;
export function canFindMarked(procDir = '/proc'): boolean {
  if (procDir !== '/proc') return true;
  if (procWorks === undefined) {
    try {
      readFileSync('/proc/self/environ');
      procWorks = true;
    } catch {
      procWorks = false;
    }
  }
  return procWorks;
}

/** PIDs of live processes (never this one) whose environment carries `mark`. */
export function findMarked(mark: string, procDir = '/proc'): number[] {
  if (!canFindMarked(procDir)) return [];
  const needle = Buffer.from(`${RUN_MARK_ENV}=${mark}\0`);
  const out: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync(procDir);
  } catch {
    return [];
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let env: Buffer;
    try {
      env = readFileSync(`${procDir}/${entry}/environ`);
    } catch {
      continue; // ended while we looked, or another user's process (not ours to end)
    }
    // A whole entry: at the start or right after the NUL that ends the previous one.
    for (let at = env.indexOf(needle); at >= 0; at = env.indexOf(needle, at + 1)) {
      if (at === 0 || env[at - 1] === 0) {
        out.push(Number(entry));
        break;
      }
    }
  }
  return out;
}

/**
 * Signals every process carrying `mark`. Repeated a few times for SIGKILL: a process may fork
 * between the scan and the kill, and its child (marked too) is found on the next pass.
 */
export function signalMarked(mark: string, signal: NodeJS.Signals): number {
  let signalled = 0;
  for (let pass = 0; pass < (signal === 'SIGKILL' ? 3 : 1); pass++) {
    const pids = findMarked(mark);
    if (pids.length === 0) break;
    for (const pid of pids) {
      try {
        process.kill(pid, signal);
        signalled++;
      } catch {
        // ESRCH: gone already.
      }
    }
  }
  return signalled;
}

// Which processes one turn of a warm CLI started, so a turn that is stopped or times out ends them
// all, as a cold run's stop does (spawn.ts). The warm process's run mark (run-mark.ts) is set once,
// when it starts, and is inherited by everything it ever starts: it tells the process's processes
// from the machine's, not one turn's from another's. A process's environment cannot be changed once
// it runs, and no CLI passes a value of ours down per turn, so a turn is told apart by time: every
// process carrying the mark that started at or after the turn began is the turn's. The kernel keeps
// each process's start (/proc/<pid>/stat, field 22, clock ticks since boot) wherever it goes, so a
// `setsid` grandchild that ignores TERM and was handed to init is still found, and still the turn's.
//
// Why the clock and not a list of the marked processes taken when the turn begins: listing them
// reads every process's environment (about 25 ms on a loaded two-core machine) before every turn;
// the clock is one read of /proc/uptime (under 0.1 ms), and the full scan is paid only on a stop.
//
// What a stop keeps: everything that ran before the turn began (the CLI, the helpers it started
// with, what earlier turns left running: those end when the process closes), and agentwire's own
// tool server even when the CLI first starts it during a turn (opencode connects its MCP servers at
// the first prompt). That server is known by its command line AND a parent older than the turn (the
// CLI), so a command the agent runs cannot pass for it by name: its parent is the turn's shell, or
// init once it detached. Anything else the CLI starts mid-turn and keeps (a language server) ends
// with a stopped turn; the CLI starts it again when it needs it.
import { readFileSync } from 'node:fs';
import { canFindMarked, findMarked } from './run-mark.js';

/** USER_HZ, the unit of /proc's start times: 100 on every Linux architecture Node runs on. */
const TICKS_PER_SECOND = 100;

export interface ProcInfo {
  pid: number;
  ppid: number;
  /** Clock ticks since boot when it started. */
  start: number;
  argv: string[];
}

export interface TurnProcesses {
  /** The warm process's leader (never ended here: its driver owns it). */
  leader: number;
  mark: string;
  /** Clock ticks since boot when the turn began. */
  since: number;
}

/** Pure: the processes of `procs` (all carrying the mark) that the turn began at `t.since` started. */
export function turnLeftovers(
  procs: readonly ProcInfo[],
  t: Pick<TurnProcesses, 'leader' | 'since'>,
  isHelper: (argv: readonly string[]) => boolean = () => false,
): number[] {
  const startOf = new Map(procs.map((p) => [p.pid, p.start]));
  return procs
    .filter((p) => {
      if (p.pid === t.leader || p.start < t.since) return false;
      const parent = startOf.get(p.ppid);
      return !(parent !== undefined && parent < t.since && isHelper(p.argv));
    })
    .map((p) => p.pid);
}

/** Where the boot clock is now, in ticks; undefined without /proc. */
export function clockTicks(procDir = '/proc'): number | undefined {
  try {
    const up = Number.parseFloat(readFileSync(`${procDir}/uptime`, 'utf8'));
    return Number.isFinite(up) ? Math.floor(up * TICKS_PER_SECOND) : undefined;
  } catch {
    return undefined;
  }
}

/** A process's parent, start and argv; undefined once it is gone. */
export function readProc(pid: number, procDir = '/proc'): ProcInfo | undefined {
  try {
    const stat = readFileSync(`${procDir}/${pid}/stat`, 'utf8');
    // The command name may hold spaces and parentheses: the fields start after the last ')'.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const argv = readFileSync(`${procDir}/${pid}/cmdline`, 'utf8').split('\0');
    if (argv.at(-1) === '') argv.pop();
    return { pid, ppid: Number(f[1]), start: Number(f[19]), argv };
  } catch {
    return undefined;
  }
}

/** Notes the start of a turn of the warm process `leader`; undefined where /proc cannot tell. */
export function turnBegins(leader: number, mark: string | undefined): TurnProcesses | undefined {
  if (!mark || !canFindMarked()) return undefined;
  const since = clockTicks();
  return since === undefined ? undefined : { leader, mark, since };
}

/**
 * Kills (SIGKILL) what the turn started and left running: the turn was stopped, and its CLI had its
 * grace to end its own commands. Returns how many processes it signalled. Three passes, as signalMarked: a process may fork between the scan
 * and the kill, and its child (marked, and newer than the turn) is found on the next.
 */
export function endTurnProcesses(t: TurnProcesses, isHelper?: (argv: readonly string[]) => boolean): number {
  const ended = new Set<number>();
  for (let pass = 0; pass < 3; pass++) {
    const procs = findMarked(t.mark).flatMap((pid) => readProc(pid) ?? []);
    // One killed a moment ago may still be on its way out: only new ones make another pass.
    const pids = turnLeftovers(procs, t, isHelper).filter((pid) => !ended.has(pid));
    if (pids.length === 0) break;
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
        ended.add(pid);
      } catch {
        // ESRCH: gone already.
      }
    }
  }
  return ended.size;
}

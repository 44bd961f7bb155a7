// The process groups of the runs still going, and how they are killed: the group by its leader's
// pid, and every process carrying the run's mark (run-mark.ts), wherever it moved.
import { signalMarked } from './run-mark.js';

// Runs still going (group leader's pid → run mark): killed if this process exits, so a crash or a
// shutdown leaves no agent behind, nor anything it moved out of its group. A long-lived child
// (spawn-stdio.ts) has a mark of its own too, for its whole life.
const liveRuns = new Map<number, string | undefined>();
let exitHookInstalled = false;
export function trackRun(pid: number, mark: string | undefined): void {
  liveRuns.set(pid, mark);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const [g, m] of liveRuns) killRun(g, m, 'SIGKILL');
  });
}

/** Tracks a long-lived child's group and mark (see spawn-stdio.ts): killed if this process exits. */
export function trackGroup(pid: number, mark?: string): void {
  trackRun(pid, mark);
}

/** The run mark of a tracked child, by its leader's pid (a warm turn's processes: turn-processes.ts). */
export function markOf(pid: number): string | undefined {
  return liveRuns.get(pid);
}

/** Forgets a group that ended on its own (long-lived children, see spawn-stdio.ts). */
export function untrackGroup(pid: number): void {
  liveRuns.delete(pid);
}

/** Signals a run's group and every process that carries its mark, wherever it moved. */
export function killRun(pid: number, mark: string | undefined, signal: NodeJS.Signals): void {
  killGroup(pid, signal);
  if (mark) signalMarked(mark, signal);
}

/** Signals the child's whole process group; a group that is already gone is not an error. */
export function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: nothing left in the group.
  }
}

// The watchdog's side of a long-lived process's start (spawn-stdio.ts's `guard`), in a file of its
// own so that nice.ts, which wraps a guard, needs nothing of the spawn helpers that use it.

/** Something that kills registered groups if this process dies without doing it (see reaper.ts). */
export interface GroupGuard {
  /**
   * `mark`: also every process carrying this run mark, wherever it moved. `lowersItself`: the
   * process was started through the lowering step (sandbox-launch.ts), so a guard that lowers
   * leaves it (nice.ts).
   */
  watch(pid: number, mark?: string, lowersItself?: boolean): void;
  forget(pid: number): void;
}

// The relay's one watchdog (reaper.ts), started when the first warm process starts, and started
// again if it dies (someone killed it): the new one is told every group and mark still alive, so a relay
// killed later still takes its agents with it.
import { type Reaper, startReaper } from './reaper.js';
import type { GroupGuard } from './spawn-stdio.js';

export interface ReaperKeeper extends GroupGuard {
  /** The watchdog's pid while one runs (for status and tests). */
  pid(): number | undefined;
  /** Ends the watchdog for good (relay stop, after every warm process was closed). */
  close(): void;
}

export function reaperKeeper(
  onRestart: (info: { pid: number | undefined }) => void = () => {},
  start: (onDeath: () => void) => Reaper = (onDeath) => startReaper('/bin/sh', onDeath),
): ReaperKeeper {
  const groups = new Map<number, string | undefined>();
  let reaper: Reaper | undefined;
  let closed = false;
  const ensure = (): Reaper | undefined => {
    if (closed) return undefined;
    if (!reaper) {
      const r = start(() => {
        if (reaper !== r || closed) return;
        reaper = undefined;
        const next = ensure();
        for (const [g, mark] of groups) next?.watch(g, mark);
        onRestart({ pid: next?.pid });
      });
      reaper = r;
    }
    return reaper;
  };
  return {
    watch(pid, mark) {
      groups.set(pid, mark);
      ensure()?.watch(pid, mark);
    },
    forget(pid) {
      groups.delete(pid);
      reaper?.forget(pid);
    },
    pid: () => reaper?.pid,
    close() {
      closed = true;
      reaper?.close();
      reaper = undefined;
    },
  };
}

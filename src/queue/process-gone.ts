// Whether a registered process is gone: on this host its pid is asked (a crash is seen at once); on
// another host only its silence tells (queue/process-owner.ts reaps it after `staleMs`).
import { hostname } from 'node:os';
import type { ProcessInfo } from '../store/ownership.js';

/** True when `p` is a process of this host that no longer exists (ESRCH), or one not seen for long. */
export function processGone(p: ProcessInfo, now: number, staleMs: number): boolean {
  if (p.host !== hostname()) return now - p.lastSeen > staleMs;
  if (p.pid === process.pid) return false;
  try {
    process.kill(p.pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

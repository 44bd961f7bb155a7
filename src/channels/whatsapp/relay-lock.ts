// Whether a relay process currently owns the linked device. `login` and `logout` refuse to open a
// second connection while one runs: two sockets on one link kick each other off (close code 440).
// Asked through the relay lock's own probe (store/home-lock.ts), so a dead relay left as a zombie, or
// an unrelated process that reuses its PID, never counts as running.
import type { Paths } from '../../config/paths.js';
import { probeLock } from '../../store/home-lock.js';

/** `pid N` (or a note that it did not say) for a live relay holding the lock, else undefined. */
export async function runningRelay(paths: Pick<Paths, 'lock' | 'home'>): Promise<string | undefined> {
  const s = await probeLock(paths.lock, paths.home);
  if (s.type === 'live') return s.pid === process.pid ? undefined : `pid ${s.pid}`;
  return s.type === 'silent' ? 'pid unknown' : undefined;
}

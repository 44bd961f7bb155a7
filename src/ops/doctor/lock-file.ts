// Who holds the relay lock, asked the one way the relay itself asks (store/home-lock.ts probeLock):
// doctor, status, login and logout never judge by a PID, which a zombie or a stranger may carry.
import type { Paths } from '../../config/paths.js';
import { type LockState, probeLock } from '../../store/home-lock.js';

export function readLock(paths: Pick<Paths, 'lock' | 'home'>): Promise<LockState> {
  return probeLock(paths.lock, paths.home);
}

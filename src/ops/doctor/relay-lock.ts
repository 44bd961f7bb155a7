// One relay per state folder owns the WhatsApp session: a second one makes WhatsApp close both
// ("conflict", status 440) and races on the keys. The relay listens on paths.lock (store/home-lock.ts
// says why a socket and not a PID); doctor and status read it through the same probeLock.
import { existsSync } from 'node:fs';
import type { Paths } from '../../config/paths.js';
import type { LockState } from '../../store/home-lock.js';
import { type Finding, ok, warn } from './types.js';

export type { LockState };

/** True when a live process holds the lock (a relay that answered, or one too busy to answer). */
export function lockHeld(lock: LockState): boolean {
  return lock.type === 'live' || lock.type === 'silent';
}

export function checkRelayLock(paths: Paths, lock: LockState): Finding {
  switch (lock.type) {
    case 'none':
      return existsSync(paths.socket)
        ? warn(
            'relay',
            `no relay holds the lock, but its control socket ${paths.socket} is left over`,
            `rm ${paths.socket}  (the next relay start recreates it)`,
          )
        : ok('relay', 'no relay is running (start it with `agentwire relay` or as a service)');
    case 'live':
      return ok('relay', `one relay (pid ${lock.pid}) owns this state folder`);
    case 'silent':
      return warn(
        'relay',
        `a process holds the relay lock ${paths.lock} but did not say who it is`,
        'if no relay should be running, find the process with `fuser` or `ss -xp` and stop it',
      );
    case 'stale':
      return warn(
        'relay',
        `the relay lock ${paths.lock} was left by a relay that is gone (killed or crashed); no relay is running`,
        'start the relay again; it takes over a lock nobody holds',
      );
  }
}

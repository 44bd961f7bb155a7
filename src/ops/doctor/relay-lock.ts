// One relay per state folder owns the WhatsApp session: a second one makes WhatsApp close both
// ("conflict", status 440) and races on the keys. The relay holds paths.lock with its pid.
import { existsSync } from 'node:fs';
import type { Paths } from '../../config/paths.js';
import { type Finding, ok, warn } from './types.js';

export type LockState = { type: 'none' } | { type: 'held'; pid: number; alive: boolean };

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
    case 'held':
      return lock.alive
        ? ok('relay', `one relay (pid ${lock.pid}) owns this state folder`)
        : warn(
            'relay',
            `the lock names pid ${lock.pid}, which is not running (left by a crash)`,
            'start the relay again; it takes over a lock whose owner is gone',
          );
  }
}

// Whether a relay process currently owns the linked device. `login` and `logout` refuse to open a
// second connection while one runs: two sockets on one link kick each other off (close code 440).
// The lock file holds the owner's PID, as a bare number or JSON with a `pid` field.
import { readFileSync } from 'node:fs';

export function lockHolderPid(lockPath: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(lockPath, 'utf8').trim();
  } catch {
    return undefined;
  }
  let pid: unknown;
  try {
    pid = (JSON.parse(text) as { pid?: unknown })?.pid ?? JSON.parse(text);
  } catch {
    pid = Number(/^\d+/.exec(text)?.[0]);
  }
  return typeof pid === 'number' && Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/** The PID of a live relay holding the lock (not this process), else undefined. */
export function runningRelayPid(lockPath: string): number | undefined {
  const pid = lockHolderPid(lockPath);
  if (pid === undefined || pid === process.pid) return undefined;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (err) {
    // EPERM: alive but owned by someone else; ESRCH: a stale lock.
    return (err as NodeJS.ErrnoException).code === 'EPERM' ? pid : undefined;
  }
}

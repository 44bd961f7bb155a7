// Only one relay owns the channels of a state folder: two WhatsApp sockets on one account kick each
// other off (status 440), and two Twilio pollers answer twice. The lock file holds the owner's PID;
// a lock whose PID is no longer alive is stale (the relay was killed) and is taken over.
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';

export type LockResult = { ok: true; release: () => void } | { ok: false; pid: number };

/** True when a process with this PID exists (EPERM: it exists but belongs to someone else). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readPid(path: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(path, 'utf8').trim(), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

export function acquireLock(path: string, pid = process.pid): LockResult {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, `${pid}\n`);
      closeSync(fd);
      return {
        ok: true,
        // Only remove the lock if it is still ours (a takeover may have replaced it).
        release: () => {
          if (readPid(path) === pid) rmSync(path, { force: true });
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = readPid(path);
    if (holder !== undefined && holder !== pid && pidAlive(holder)) return { ok: false, pid: holder };
    // Stale (dead PID) or unreadable: remove it and try again.
    rmSync(path, { force: true });
  }
  return { ok: false, pid: readPid(path) ?? 0 };
}

// Only one relay owns the channels of a state folder: two WhatsApp sockets on one account kick each
// other off (status 440), and two Twilio pollers answer twice. The lock file holds the owner's PID;
// a lock whose PID is no longer alive is stale (the relay was killed) and is taken over.
//
// Two relays starting at the same moment must not both win:
// - the lock appears with its PID already in it (written to a private temp file, then hard-linked
//   into place, which fails if the lock exists), so nobody ever sees an empty lock and calls it stale;
// - a stale lock is removed only by the holder of a second, short-lived takeover guard, after it
//   looked again, so one starter cannot remove the fresh lock another starter just took over.
import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';

export type LockResult = { ok: true; release: () => void } | { ok: false; pid: number };

export interface LockOptions {
  /** Called while holding the takeover guard, just before a stale lock is removed (tests). */
  onTakeover?: () => void;
}

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

/** Creates `path` holding `pid`, atomically and only if it does not exist yet. */
function createWithPid(path: string, pid: number): boolean {
  const tmp = `${path}.${pid}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(tmp, `${pid}\n`, { mode: 0o600, flag: 'wx' });
  try {
    linkSync(tmp, path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    rmSync(tmp, { force: true });
  }
}

const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

export function acquireLock(path: string, pid = process.pid, opts: LockOptions = {}): LockResult {
  const guard = `${path}.takeover`;
  for (let attempt = 0; attempt < 50; attempt++) {
    if (createWithPid(path, pid)) {
      return {
        ok: true,
        // Only remove the lock if it is still ours (a takeover may have replaced it).
        release: () => {
          if (readPid(path) === pid) rmSync(path, { force: true });
        },
      };
    }
    const holder = readPid(path);
    if (holder !== undefined && holder !== pid && pidAlive(holder)) return { ok: false, pid: holder };
    if (holder === undefined && !existsSync(path)) continue; // released in the meantime
    // Stale (dead PID) or unreadable.
    if (createWithPid(guard, pid)) {
      try {
        opts.onTakeover?.();
        if (readPid(path) === holder) rmSync(path, { force: true });
      } finally {
        rmSync(guard, { force: true });
      }
      continue;
    }
    // Someone else is taking over; a guard whose owner died mid-takeover is cleared.
    const guardPid = readPid(guard);
    if (guardPid !== undefined && guardPid !== pid && !pidAlive(guardPid)) rmSync(guard, { force: true });
    else pause(20);
  }
  return { ok: false, pid: readPid(path) ?? 0 };
}

// Reads the relay lock file: the pid of the holder (JSON `{"pid": …}` or a bare number), and whether
// that process is alive. Signal 0 checks existence; EPERM means it exists under another user.
import { readFileSync } from 'node:fs';
import type { LockState } from './relay-lock.js';

export function readLockFile(file: string): LockState {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return { type: 'none' };
  }
  let pid: number | undefined;
  try {
    const v: unknown = JSON.parse(text);
    if (typeof v === 'number') pid = v;
    else if (v && typeof v === 'object' && typeof (v as { pid?: unknown }).pid === 'number')
      pid = (v as { pid: number }).pid;
  } catch {
    const m = /\d+/.exec(text);
    if (m) pid = Number(m[0]);
  }
  if (!pid || !Number.isInteger(pid) || pid <= 0) return { type: 'none' };
  return { type: 'held', pid, alive: pidAlive(pid) };
}

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

// Reads the relay lock file (control/lock.ts writes the holder's pid; a JSON `{"pid": …}` is read
// too) and whether that process is alive, by the lock's own rule.
import { readFileSync } from 'node:fs';
import { pidAlive } from '../../control/lock.js';
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

// Reading the rotated log files: the last N lines across them, and following the current file
// through rotations (the old file is drained through its open descriptor before the new one is read).
import { closeSync, fstatSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { rotatedFiles } from '../../log-rotate.js';

/** The last `n` complete lines passing `keep`, across `file` and its rotated predecessors, oldest first. */
export function tailLines(file: string, n: number, keep: (line: string) => boolean = () => true): string[] {
  const out: string[] = [];
  if (n <= 0) return out;
  for (const f of rotatedFiles(file)) {
    const lines = readFileSync(f, 'utf8')
      .split('\n')
      .filter((l) => l.length > 0 && keep(l));
    out.unshift(...lines.slice(Math.max(0, lines.length - (n - out.length))));
    if (out.length >= n) break;
  }
  return out;
}

/** Size of the file now, or 0 when it does not exist: where following starts. */
export function currentSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/**
 * Calls `onLine` for every complete line appended to `file` after byte `start`, across rotations,
 * until `signal` aborts. Polls: fs.watch misses renames on some filesystems, a 200 ms stat does not.
 */
export async function followLines(
  file: string,
  start: number,
  onLine: (line: string) => void,
  signal: AbortSignal,
  intervalMs = 200,
): Promise<void> {
  let cur = openAt(file, start);
  let partial = '';
  const drain = (c: { fd: number; pos: number }): void => {
    const buf = Buffer.alloc(64 * 1024);
    for (;;) {
      const n = readSync(c.fd, buf, 0, buf.length, c.pos);
      if (n <= 0) return;
      c.pos += n;
      const text = partial + buf.subarray(0, n).toString('utf8');
      const lines = text.split('\n');
      partial = lines.pop() ?? '';
      for (const l of lines) if (l.length > 0) onLine(l);
    }
  };
  try {
    while (!signal.aborted) {
      if (cur) drain(cur);
      const st = statOrUndefined(file);
      if (st && (!cur || st.ino !== cur.ino)) {
        // Rotated (or created): finish the old file through its descriptor, then start the new one.
        if (cur) {
          drain(cur);
          closeSync(cur.fd);
          // Several rotations may have happened since the last poll: read the files in between.
          for (const between of newerRotated(file, cur.ino)) {
            const c = openAt(between, 0);
            if (!c) continue;
            drain(c);
            closeSync(c.fd);
          }
        }
        if (partial) onLine(partial);
        partial = '';
        cur = openAt(file, 0);
        continue;
      }
      if (st && cur && st.size < cur.pos) cur.pos = 0; // truncated in place
      await sleep(intervalMs, undefined, { signal }).catch(() => undefined);
    }
  } finally {
    if (cur) closeSync(cur.fd);
  }
}

/** The rotated files written after the one with inode `ino`, oldest first. */
function newerRotated(file: string, ino: number): string[] {
  const rotated = rotatedFiles(file).slice(1);
  const i = rotated.findIndex((f) => statOrUndefined(f)?.ino === ino);
  return i <= 0 ? [] : rotated.slice(0, i).reverse();
}

function openAt(file: string, pos: number): { fd: number; pos: number; ino: number } | undefined {
  try {
    const fd = openSync(file, 'r');
    return { fd, pos, ino: fstatSync(fd).ino };
  } catch {
    return undefined;
  }
}

function statOrUndefined(file: string) {
  try {
    return statSync(file);
  } catch {
    return undefined;
  }
}

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

/**
 * Where following starts: the current file, opened now, at its end. Taken before the tail is read,
 * so a line written meanwhile is followed rather than lost, and held by descriptor, so a rotation
 * before following begins cannot swap in another file under the same name.
 */
export function followStart(file: string): Opened | undefined {
  const o = openAt(file, 0);
  if (o) o.pos = fstatSync(o.fd).size;
  return o;
}

/**
 * Calls `onLine` for every complete line appended to `file` after `start` (see followStart), across
 * rotations,
 * until `signal` aborts. Polls: fs.watch misses renames on some filesystems, a 200 ms stat does not.
 */
export async function followLines(
  file: string,
  start: Opened | undefined,
  onLine: (line: string) => void,
  signal: AbortSignal,
  intervalMs = 200,
): Promise<void> {
  let cur = start;
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
        // Rotated (or created): finish the old file through its descriptor, then open the current
        // one before looking for the files rotated in between, so a rotation that happens meanwhile
        // leaves the opened file among them (excluded by inode) instead of skipping a file.
        if (cur) {
          drain(cur);
          closeSync(cur.fd);
        }
        const next = openAt(file, 0);
        if (cur) {
          for (const c of openRotatedBetween(file, cur.ino, next?.ino)) {
            drain(c);
            closeSync(c.fd);
          }
        }
        if (partial) onLine(partial);
        partial = '';
        cur = next;
        continue;
      }
      if (st && cur && st.size < cur.pos) cur.pos = 0; // truncated in place
      await sleep(intervalMs, undefined, { signal }).catch(() => undefined);
    }
  } finally {
    if (cur) closeSync(cur.fd);
  }
}

/**
 * The rotated files written after the one with inode `ino` and before `upTo` (already open), oldest
 * first, opened. The writer may be renaming them while we look (a burst of rotations shifts every
 * name), so the files are opened first and kept only when each descriptor is the file the listing
 * named; otherwise the listing is taken again. An `ino` no longer listed was pruned by `keep`: then
 * every rotated file is newer than it.
 */
function openRotatedBetween(file: string, ino: number, upTo: number | undefined): Opened[] {
  for (let attempt = 0; ; attempt++) {
    const listed = rotatedFiles(file)
      .slice(1)
      .map((f) => ({ f, ino: statOrUndefined(f)?.ino }));
    const i = listed.findIndex((r) => r.ino === ino);
    const newer = (i < 0 ? listed : listed.slice(0, i)).filter((r) => r.ino !== upTo).reverse();
    const opened = newer.map((r) => openAt(r.f, 0));
    if (opened.every((o, k) => o && o.ino === newer[k]?.ino) || attempt >= 20) {
      return opened.filter((o): o is Opened => o !== undefined);
    }
    for (const o of opened) if (o) closeSync(o.fd);
  }
}

export type Opened = { fd: number; pos: number; ino: number };

function openAt(file: string, pos: number): Opened | undefined {
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

// The media check and the copy are one step. A path is a name, checked once and read later: between
// the two any of its folders can become a symlink (O_NOFOLLOW guards only the last part), so a file
// approved as `workspace/d/passwd` could be read as /etc/passwd at send time. Here the file
// is opened once, the OPEN DESCRIPTOR is verified (where it really is, that it is a regular file, its
// size), and its bytes are copied at once into the relay's private staging folder. Every channel
// sends that copy; what the path names afterwards no longer matters.
import { randomBytes } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { chmod, type FileHandle, mkdir, open, readdir, readlink, realpath, rm, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import { overLimit } from '../core/size-text.js';

export type StageRefusal = {
  ok: false;
  code: 'not_found' | 'outside_roots' | 'not_a_file' | 'too_large' | 'staging_full' | 'stage_failed';
  reason: string;
};

export type StageResult =
  | {
      ok: true;
      /** The private copy: what every channel sends. */
      path: string;
      sizeBytes: number;
      /** Where the opened file really was when it was checked. */
      source: string;
      /** Device and inode of the original, so two names for one file are sent once. */
      identity: string;
    }
  | StageRefusal;

// O_NONBLOCK: a FIFO swapped in for the file must not hang the open (fstat then refuses it);
// O_NOCTTY: a terminal device must never become the relay's controlling terminal.
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY;

const CHANGED = 'the file changed while it was checked';

/**
 * Opens `path`, verifies the descriptor against `roots` (real paths) and `maxBytes`, and copies its
 * bytes into `dir` (created 0700; the copy is 0600). The copy is cut off by bytes actually read, so a
 * file that grows after the size check is refused, never half-sent.
 */
export async function stageChecked(opts: {
  path: string;
  roots: readonly string[];
  maxBytes: number;
  dir: string;
  extension: string;
  /** Bytes the staging folder may still take (copies waiting to be sent count against it). */
  room?: number;
}): Promise<StageResult> {
  let handle: FileHandle;
  try {
    handle = await open(opts.path, OPEN_FLAGS);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // ELOOP: the last part became a symlink after the name was resolved.
    return refuse('not_found', code === 'ELOOP' ? CHANGED : 'no such file');
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) return refuse('not_a_file', 'not a regular file');
    if (st.size > opts.maxBytes) return refuse('too_large', overLimit(st.size, opts.maxBytes));
    const where = await whereOpened(handle, opts.path, st);
    if (where === undefined) return refuse('not_found', CHANGED);
    if (!opts.roots.some((root) => inside(where, root)))
      return refuse('outside_roots', 'not inside an allowed folder');
    // A hard link is the same file under a second name: one made inside the root to a file outside it
    // (the agent's user owns both, so the kernel's protected_hardlinks allows it) has a real path
    // inside. No path check can tell, so a file with more than one name is not sent.
    if (st.nlink > 1)
      return refuse('outside_roots', 'it has other hard links, possibly outside the allowed folders');
    if (opts.room !== undefined && st.size > opts.room) return full();
    return await copyOut(handle, where, st, opts);
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/**
 * Where an open file really is. Linux names it in /proc/self/fd (the kernel's own answer for this
 * descriptor, whatever happened to the path since). Elsewhere, or without /proc: the real path of the
 * name, accepted only if it is the very file that was opened (same device and inode).
 */
export async function whereOpened(
  handle: FileHandle,
  path: string,
  st: Stats,
  useProc = process.platform === 'linux',
): Promise<string | undefined> {
  if (useProc) {
    const named = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => undefined);
    // " (deleted)": unlinked since the open; "pipe:[…]" and the like are not paths at all.
    if (named !== undefined) return isAbsolute(named) && !named.endsWith(' (deleted)') ? named : undefined;
  }
  try {
    const real = await realpath(path);
    const now = await stat(real);
    return now.dev === st.dev && now.ino === st.ino ? real : undefined;
  } catch {
    return undefined;
  }
}

async function copyOut(
  handle: FileHandle,
  source: string,
  st: Stats,
  opts: { maxBytes: number; dir: string; extension: string; room?: number },
): Promise<StageResult> {
  const target = join(opts.dir, `${randomBytes(24).toString('base64url')}.${opts.extension}`);
  let out: FileHandle | undefined;
  try {
    await mkdir(opts.dir, { recursive: true, mode: 0o700 });
    // A folder made earlier by hand or by an older version: the copies are private either way.
    await chmod(opts.dir, 0o700);
    out = await open(target, 'wx', 0o600);
    const buf = Buffer.allocUnsafe(Math.min(opts.maxBytes + 1, 1 << 20));
    let total = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buf, 0, buf.length, total);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > opts.maxBytes || (opts.room !== undefined && total > opts.room)) {
        await out.close();
        out = undefined;
        await rm(target, { force: true });
        return total > opts.maxBytes ? refuse('too_large', overLimit(total, opts.maxBytes)) : full();
      }
      await out.write(buf, 0, bytesRead);
    }
    await out.close();
    out = undefined;
    return { ok: true, path: target, sizeBytes: total, source, identity: `${st.dev}:${st.ino}` };
  } catch (err) {
    await out?.close().catch(() => undefined);
    await rm(target, { force: true }).catch(() => undefined);
    // Disk full, or the state folder not writable: the reply still goes, with this as its notice.
    return refuse(
      'stage_failed',
      `could not copy it for sending (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
}

/**
 * Deletes staged copies no unsent reply names. `keep` holds the paths the outbox still needs; a copy
 * younger than `graceMs` is kept too, since it may be on its way into the outbox right now.
 */
export async function sweepStaged(
  dir: string,
  keep: ReadonlySet<string>,
  opts: { now: number; graceMs: number },
): Promise<number> {
  const names = await readdir(dir).catch(() => [] as string[]);
  let removed = 0;
  for (const name of names) {
    const file = join(dir, name);
    if (keep.has(file)) continue;
    const st = await stat(file).catch(() => undefined);
    if (!st || opts.now - st.mtimeMs < opts.graceMs) continue;
    await rm(file, { force: true });
    removed++;
  }
  return removed;
}

/** Bytes held by the staging folder now. */
export async function stagedBytes(dir: string): Promise<number> {
  let total = 0;
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    total += (await stat(join(dir, name)).catch(() => undefined))?.size ?? 0;
  }
  return total;
}

export function inside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel);
}

function refuse(code: StageRefusal['code'], reason: string): StageRefusal {
  return { ok: false, code, reason };
}

const full = () =>
  refuse('staging_full', 'too many attachments are waiting to be sent; try again once they are');

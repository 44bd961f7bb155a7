// One sentence for a state folder agentwire cannot write. A read-only mount or a folder owned by
// another user used to end the relay with a bare `EROFS: read-only file system, chmod '…/logs'`
// (or, from a recursive mkdir on a read-only mount, a misleading ENOENT). This names the folder that
// refuses writes and what to do about it.
import { accessSync, constants } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';

/** Codes a write into the state folder fails with when the folder, not the data, is the problem. */
const WRITE_CODES = new Set(['EROFS', 'EACCES', 'EPERM', 'ENOENT']);

/** How a folder refuses writes, if it does: the errno code of access(W_OK), or undefined. */
export type WriteProbe = (dir: string) => string | undefined;

export const probeWritable: WriteProbe = (dir) => {
  try {
    accessSync(dir, constants.W_OK);
    return undefined;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code ?? 'EACCES';
  }
};

/**
 * For an error met writing under `home`: the sentence to show instead, or undefined when the error
 * is not about a folder refusing writes. `probe` tells, for the failed path and each parent up to
 * `home`, whether it refuses writes (ENOENT: it does not exist, so its parent is asked).
 */
export function stateFolderProblem(
  err: unknown,
  home: string,
  probe: WriteProbe = probeWritable,
): string | undefined {
  const e = err as NodeJS.ErrnoException | undefined;
  if (!e?.code || !WRITE_CODES.has(e.code)) return undefined;
  const root = resolve(home);
  const failed = e.path ? resolve(e.path) : root;
  // Only paths inside the state folder are its problem (a missing agent CLI is ENOENT too).
  if (relative(root, failed).startsWith('..')) return undefined;
  // The folder to name: the outermost one that refuses writes, climbing from the failed path while
  // folders refuse or do not exist yet (a recursive mkdir on a read-only mount fails with ENOENT).
  let worst: { dir: string; code: string } | undefined;
  for (let dir = failed; ; dir = dirname(dir)) {
    const code = probe(dir);
    if (code === undefined) break;
    if (code !== 'ENOENT') {
      worst = { dir, code };
      // Above the state folder, the nearest existing parent is the one to name.
      if (relative(root, dir).startsWith('..')) break;
    }
    if (dir === dirname(dir)) break;
  }
  if (worst) return sentence(worst.dir, root, worst.code);
  return e.code === 'ENOENT' ? undefined : sentence(failed, root, e.code);
}

function sentence(dir: string, home: string, code: string): string {
  const where =
    dir === home
      ? `The state folder ${dir}`
      : relative(home, dir).startsWith('..')
        ? `${dir}, where the state folder ${home} is to be made,`
        : `${dir} in the state folder ${home}`;
  const set = 'or set AGENTWIRE_HOME to a writable folder';
  if (code === 'EROFS')
    return `${where} is on a read-only file system (EROFS), so agentwire cannot keep its database and logs there: remount it read-write, ${set}.`;
  return `${where} is not writable by this user (${code}), so agentwire cannot keep its database and logs there: give this user write access (chown or chmod), ${set}.`;
}

// Every test removes what it made, temp folders too. This global set-up gives the run a temp folder
// of its own (TMPDIR, which os.tmpdir() and every child process read) and, after the last file,
// fails the run naming whatever was left in it, then removes it: a leak shows up as a failed run
// the day it is written, not as hundreds of folders in /tmp weeks later.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The set-up; `onLeft: 'report'` names what was left on stderr instead of failing the run. */
export function tmpGuard(onLeft: 'fail' | 'report'): () => () => void {
  return () => {
    // Inherited by each project of the config: the first one sets the folder up, the rest leave it.
    if (process.env.AGENTWIRE_TESTS_TMP) return () => undefined;
    const dir = mkdtempSync(join(tmpdir(), 'aw-tests-'));
    process.env.AGENTWIRE_TESTS_TMP = dir;
    process.env.TMPDIR = dir;
    return () => {
      const left = readdirSync(dir).sort();
      rmSync(dir, { recursive: true, force: true });
      if (left.length === 0) return;
      const say = `tests left ${left.length} entries in the temp folder (each test must remove what it made): ${left.join(', ')}`;
      if (onLeft === 'fail') throw new Error(say);
      process.stderr.write(`warning: ${say}; removed\n`);
    };
  };
}

export default tmpGuard('fail');

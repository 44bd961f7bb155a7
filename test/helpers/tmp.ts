// Temp folders that remove themselves: each test removes what it made (test/setup/tmp-guard.ts fails
// the run otherwise). Made inside a test (or its beforeEach), a folder goes when that test has
// finished, after its afterEach hooks (which stop whatever still uses it). Made anywhere else (a
// file's top level, a describe, a beforeAll), it goes when the file has finished, after every
// afterAll (test/setup/tmp-sweep.ts). An afterAll registered from inside a running beforeAll is
// never run, which is how the real-CLI relay rigs left their folders behind. A file whose every test
// skips (bwrap missing) runs no hook at all, its afterAll neither: such a file makes its folders in
// its tests or hooks, never at its top level.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';

const untilFileEnd = new Map<string, (() => Promise<void>) | undefined>();

/** A new folder under the temp folder, named `<prefix>XXXXXX`, removed after use. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  removeAfter(dir);
  return dir;
}

/** A test context's own `onTestFinished` (the one a concurrent test must use). */
export type OnFinished = (fn: () => Promise<void>) => void;

/**
 * Removes `path` (a folder, recursively) when the current test or, outside one, the file ends;
 * after `before` when given (waiting for the processes that still write in it to exit). A
 * concurrent test passes its context's `onTestFinished` as `finished`: vitest does not track which
 * of several running tests is "current", and the global hook can fire at the end of another one
 * (whose `before` then kills this test's processes while it still runs).
 */
export function removeAfter(path: string, before?: () => Promise<void>, finished?: OnFinished): void {
  const remove = async () => {
    await before?.();
    rmSync(path, { recursive: true, force: true });
  };
  if (finished) {
    finished(remove);
    return;
  }
  try {
    onTestFinished(remove);
  } catch {
    // Not inside a test: vitest throws, and the file's end is the time.
    untilFileEnd.set(path, before);
  }
}

/** Removes what was made outside a test; the per-file set-up calls it after the file's last hook. */
export async function sweepFileTemps(): Promise<void> {
  for (const [path, before] of untilFileEnd) {
    await before?.();
    rmSync(path, { recursive: true, force: true });
  }
  untilFileEnd.clear();
}

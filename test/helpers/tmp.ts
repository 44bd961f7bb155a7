// Temp folders that remove themselves: each test removes what it made (test/setup/tmp-guard.ts fails
// the run otherwise). Made inside a test (or its beforeEach), a folder goes when that test has
// finished, after its afterEach hooks (which stop whatever still uses it); made anywhere else (a
// file's top level, a describe, a beforeAll), when the enclosing file or describe has finished.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, onTestFinished } from 'vitest';

/** A new folder under the temp folder, named `<prefix>XXXXXX`, removed after use. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  removeAfter(dir);
  return dir;
}

/** Removes `path` (a folder, recursively) when the current test or, outside one, suite ends. */
export function removeAfter(path: string): void {
  const remove = () => rmSync(path, { recursive: true, force: true });
  try {
    onTestFinished(remove);
  } catch {
    // Not inside a test: vitest throws, and the enclosing suite's end is the time.
    afterAll(remove);
  }
}

// Per-file set-up of `npm test`: the files listed in store-free.ts must never open a store, because
// the deferred run (`npm run test:deferred`) leaves them out. Each file gets a marker path in
// AGENTWIRE_TEST_STORE_SEEN, which the process and every child that inherits the environment (a
// built relay, a CLI command) create when a store asks which engine to be (src/store/deferred.ts):
// the same question AGENTWIRE_TEST_STORE answers in the deferred run, so a file that never creates
// it runs the same code there. A listed file that created it fails here, naming the list.
// AGENTWIRE_STORE_SEEN_REPORT=<file> appends "<opened|free> <test file>" per file (to write the list).
import { appendFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { STORE_SEEN_ENV } from '../../src/store/deferred.js';
import { STORE_FREE } from './store-free.js';

// In a folder of its own, removed with it: a child that outlives the file (and asks after this
// check) finds no folder to write in, rather than leaving a marker in the run's temp folder. Made in
// a hook, not at import: a file whose every test skips (no bwrap here) runs no hook, so a folder
// made at import would be left behind and fail the run's temp check.
let dir: string | undefined;
const marker = () => join(dir ?? '', 'seen');

const path = relative(process.cwd(), expect.getState().testPath ?? '');

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'aw-store-seen-'));
  process.env[STORE_SEEN_ENV] = marker();
});

afterAll(() => {
  if (!dir) return;
  const opened = existsSync(marker());
  rmSync(dir, { recursive: true, force: true });
  dir = undefined;
  const report = process.env.AGENTWIRE_STORE_SEEN_REPORT;
  if (report) appendFileSync(report, `${opened ? 'opened' : 'free'} ${path}\n`);
  if (opened && STORE_FREE.includes(path))
    throw new Error(
      `${path} opened a store, but test/setup/store-free.ts lists it as store-free, so the deferred run leaves it out: take it off the list`,
    );
});

// Per-file set-up (setupFiles): the temp folders a file made outside its tests (test/helpers/tmp.ts)
// are removed once the file has finished. A file-level afterAll registered here runs after the
// file's own describe-level afterAll hooks, which stop the relays and processes that use them.
import { afterAll } from 'vitest';
import { sweepFileTemps } from '../helpers/tmp.js';

afterAll(async () => {
  await sweepFileTemps();
});

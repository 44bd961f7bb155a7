// The opt-in suite against the real agent CLIs (`npm run test:clis`: test/clis/run.sh installs them
// and wraps this run in test/clis/netns.sh). The fake model server's and the installer's own tests
// (test/clis/*/) run in `npm test` instead.

import { defineConfig } from 'vitest/config';
import { longFirst } from './test/setup/long-first.js';

/**
 * Started first, longest first: files that spend a minute or two waiting on the wall clock (gemini's
 * resume needs the next minute; a tool call has to outlast the CLIs' own 60 s limit) or on many CLIs.
 */
const LongFirst = longFirst(['warm-relay-gemini', 'tool-timeouts', 'toolset']);

export default defineConfig({
  test: {
    include: ['test/clis/*.test.ts'],
    // The temp-folder guard first: the run's own temp folder, and what a test left in it named
    // (reported rather than failed here: test/setup/tmp-report.ts says why).
    globalSetup: ['test/setup/tmp-report.ts', 'test/setup/compile-cache.ts', 'test/clis/global-setup.ts'],
    setupFiles: ['test/setup/tmp-sweep.ts'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    pool: 'forks',
    // Three files at a time on two cores: each cold start is CPU-heavy, but the two files started
    // first spend most of their minute or two asleep (named above), and with two workers the run's
    // first minute was those two sleeping while the CPU stood idle.
    maxWorkers: 3,
    sequence: { sequencer: LongFirst },
  },
});

// The opt-in suite against the real agent CLIs (`npm run test:clis`: test/clis/run.sh installs them
// and wraps this run in test/clis/netns.sh). The fake model server's and the installer's own tests
// (test/clis/*/) run in `npm test` instead.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/clis/*.test.ts'],
    // The temp-folder guard first: the run's own temp folder, and what a test left in it named
    // (reported rather than failed here: test/setup/tmp-report.ts says why).
    globalSetup: ['test/setup/tmp-report.ts', 'test/clis/global-setup.ts'],
    setupFiles: ['test/setup/tmp-sweep.ts'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    pool: 'forks',
    // Two CLIs at a time: each cold start is CPU-heavy and the machine has few cores.
    maxWorkers: 2,
  },
});

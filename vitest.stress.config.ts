// The stress suites (`npm run test:stress`): load and crash-and-restart against real relay
// processes. Longer than `npm test` allows, and each file drives a machine's worth of processes, so
// files run one at a time.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/stress/**/*.test.ts'],
    globalSetup: ['test/setup/tmp-guard.ts'],
    setupFiles: ['test/setup/tmp-sweep.ts'],
    testTimeout: 150_000,
    hookTimeout: 30_000,
    pool: 'forks',
    fileParallelism: false,
  },
});

// The stress suites (`npm run test:stress`): load and crash-and-restart against real relay
// processes. Longer than `npm test` allows.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/stress/**/*.test.ts'],
    globalSetup: ['test/setup/compile-cache.ts', 'test/setup/tmp-guard.ts'],
    setupFiles: ['test/setup/tmp-sweep.ts'],
    testTimeout: 150_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Two at a time: the crash suite mostly waits on relay start-ups (30 of them) and the load suite
    // on its fake CLIs' sleeps; neither asserts a time, and one after the other they took 2 minutes.
    maxWorkers: 2,
  },
});

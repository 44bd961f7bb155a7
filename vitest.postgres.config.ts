// `npm run test:postgres`: the suites that need a PostgreSQL server (the store's contract over the
// PostgreSQL engine, and that engine's own tests). One throwaway cluster per run (test/setup/postgres.ts,
// initdb from Debian's `postgresql` package); `npm test` stays without them, so it needs only Node.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/postgres/**/*.test.ts'],
    globalSetup: ['test/setup/compile-cache.ts', 'test/setup/tmp-guard.ts', 'test/setup/postgres.ts'],
    setupFiles: ['test/setup/tmp-sweep.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});

// `npm run test:postgres`: the suites that need a PostgreSQL server (the store's contract over the
// PostgreSQL engine, and that engine's own tests). One throwaway cluster per run (test/setup/postgres.ts,
// initdb from Debian's `postgresql` package); `npm test` stays without them, so it needs only Node.
import { defineConfig } from 'vitest/config';
import { longFirst } from './test/setup/long-first.js';

export default defineConfig({
  test: {
    include: ['test/postgres/**/*.test.ts'],
    globalSetup: ['test/setup/compile-cache.ts', 'test/setup/tmp-guard.ts', 'test/setup/postgres.ts'],
    setupFiles: ['test/setup/tmp-sweep.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // The two failover files spend most of their minute waiting for a schedule's next due time:
    // started first, beside a third worker that takes the rest (CI's run went from 116 s to about 80).
    maxWorkers: 3,
    // Ports from slices of their own (test/support/free-port.ts): CI runs this suite beside the
    // stress suite, whose two workers draw from slices 1 and 2.
    env: { AGENTWIRE_TEST_PORT_SLICES: '4' },
    sequence: { sequencer: longFirst(['relays-leader', 'relays-heartbeat']) },
  },
});

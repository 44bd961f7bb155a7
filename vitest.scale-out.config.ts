// `npm run test:scale-out`: the crash suite across relay processes at full size (three built relays
// on one PostgreSQL, 50 chats × 20 messages, 30 SIGKILLs; 3 to 9 minutes on a 2-core machine). It
// needs Debian's `postgresql` binaries like test:postgres. CI runs the same scenario smaller in
// test:postgres (test/postgres/relays-crash.test.ts), which keeps `.ci/run` within its time; this
// full size is run by hand before a change to leases, recovery or delivery lands.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/scale-out/**/*.test.ts'],
    globalSetup: ['test/setup/compile-cache.ts', 'test/setup/tmp-guard.ts'],
    setupFiles: ['test/setup/tmp-sweep.ts'],
    testTimeout: 900_000,
    hookTimeout: 60_000,
    pool: 'forks',
    fileParallelism: false,
  },
});

// The web console in a real headless Chromium (`npm run test:browser`), kept out of `npm test` so
// that a machine with only Node passes it. test/web/find-browser.ts says where the browser comes from.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/web/browser.test.ts'],
    globalSetup: ['test/setup/compile-cache.ts', 'test/setup/tmp-guard.ts'],
    setupFiles: ['test/setup/tmp-sweep.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});

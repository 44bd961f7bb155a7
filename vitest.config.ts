import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The real-CLI suite, the stress suites and the browser test have their own routes (npm run
    // test:clis, test:stress, test:browser): they need installed CLIs, minutes, or a Chromium, and
    // `npm test` must pass on a machine with only Node.
    exclude: ['test/clis/*.test.ts', 'test/stress/**', 'test/web/browser.test.ts', 'node_modules/**'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
  },
});

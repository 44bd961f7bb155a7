// The opt-in suite against the real agent CLIs (`npm run test:clis`, which wraps it in netns.sh).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/clis/**/*.test.ts'],
    globalSetup: ['test/clis/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    pool: 'forks',
    // Two CLIs at a time: each cold start is CPU-heavy and the machine has few cores.
    maxWorkers: 2,
  },
});

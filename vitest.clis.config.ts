// The opt-in suite against the real agent CLIs (`npm run test:clis`: test/clis/run.sh installs them
// and wraps this run in test/clis/netns.sh). The fake model server's and the installer's own tests
// (test/clis/*/) run in `npm test` instead.

import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Started first, longest first: files that spend a minute or two waiting on the wall clock (gemini's
 * resume needs the next minute; a tool call has to outlast the CLIs' own 60 s limit) or on many
 * CLIs. Without timings from an earlier run (a fresh clone in CI), vitest starts the largest files
 * first, and these small ones came last, each a minute or two alone at the end of the run.
 */
const LONG = ['warm-relay-gemini', 'tool-timeouts', 'toolset'];

class LongFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) => {
      const i = LONG.findIndex((name) => f.moduleId.endsWith(`/${name}.test.ts`));
      return i < 0 ? LONG.length : i;
    };
    // Array.prototype.sort is stable: the rest keep vitest's own order.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

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
    // Three files at a time on two cores: each cold start is CPU-heavy, but the two files started
    // first spend most of their minute or two asleep (LONG above), and with two workers the run's
    // first minute was those two sleeping while the CPU stood idle.
    maxWorkers: 3,
    sequence: { sequencer: LongFirst },
  },
});

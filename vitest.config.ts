// README's `npm test`. Projects by folder, so a new file is picked up where it is put:
// - `shared`: the folders of in-process tests (policy, store, queue, drivers and the runner against
//   fake CLIs, channels against fakes, CLI commands) and of the suites that drive built relay
//   processes (e2e, faults, hostile, secrets). They run with `isolate: false`: a worker runs
//   file after file with its modules already loaded, instead of a new process and a fresh import of
//   zod, express, twilio and Baileys per file (about 1.3 s of start-up each, far more on a loaded
//   machine: test/queue and test/events took 52 s isolated and 21 s shared at load 20).
// - `isolated`: any new folder: one fresh worker per file.
// - `set-apart`: the files in the shared folders that change process-wide state (module mocks, spies
//   on globals, fake timers, environment, umask, registered secrets): one fresh worker per file.
import { existsSync } from 'node:fs';
import { defineConfig } from 'vitest/config';
import { STORE_FREE } from './test/setup/store-free.js';

// The real-CLI suite, the stress suites, the browser test and the PostgreSQL suites have their own
// routes (npm run test:clis, test:stress, test:browser, test:postgres, test:scale-out): they need installed CLIs,
// minutes, a Chromium or a PostgreSQL server, and `npm test` must pass on a machine with only Node.
const OTHER_ROUTES = [
  'test/clis/*.test.ts',
  'test/stress/**',
  'test/web/browser.test.ts',
  'test/postgres/**',
  'test/scale-out/**',
];

const SHARED = [
  'test/*.test.ts',
  'test/agents/**/*.test.ts',
  'test/bench/**/*.test.ts',
  'test/channels/**/*.test.ts',
  'test/cli/**/*.test.ts',
  'test/config/**/*.test.ts',
  'test/control/**/*.test.ts',
  'test/core/**/*.test.ts',
  'test/drivers/**/*.test.ts',
  'test/events/**/*.test.ts',
  'test/heartbeat/**/*.test.ts',
  'test/media/**/*.test.ts',
  'test/ops/**/*.test.ts',
  'test/queue/**/*.test.ts',
  'test/runner/**/*.test.ts',
  'test/store/**/*.test.ts',
  'test/tools/**/*.test.ts',
  'test/web/**/*.test.ts',
  // The suites that drive built relay processes: the relays are child processes, so what these
  // files share in a worker is only the test's side (helpers, fakes); a fresh worker per file cost
  // about a second of CPU each, 67 files.
  'test/e2e/**/*.test.ts',
  'test/faults/**/*.test.ts',
  'test/hostile/**/*.test.ts',
  'test/secrets/**/*.test.ts',
  'test/support/**/*.test.ts',
  // The fake model server's and the CLI installer's own tests (the real-CLI suite is its own route).
  'test/clis/*/**/*.test.ts',
];

// The deferred run (AGENTWIRE_TEST_STORE=deferred) proves the queue does not depend on when the
// store answers; a file that never opens a store runs the same code there, so it is left out.
// `npm test` checks each listed file never opens one (test/setup/store-seen.ts).
const DEFERRED = process.env.AGENTWIRE_TEST_STORE === 'deferred';
const gone = STORE_FREE.filter((f) => !existsSync(f));
if (gone.length > 0)
  throw new Error(`test/setup/store-free.ts lists files that are not there: ${gone.join(', ')}`);
const SKIP = DEFERRED ? STORE_FREE : [];

// Files in those folders that change what a later file in the same worker would see.
const NEEDS_ISOLATION = [
  'test/log.test.ts', // registers secrets, which mask those words in every later log line
  'test/agents/reading.test.ts', // spies on JSON.parse
  'test/agents/sixth-cli.test.ts', // mocks the agent registry, stubs the environment
  'test/channels/twilio/direct.test.ts', // sets TWILIO_EDGE
  'test/control/server-umask.test.ts', // mocks node:fs
  'test/ops/logs.test.ts', // registers a secret, spies on stderr
  'test/ops/status/snapshot.test.ts', // registers a secret
  'test/tools/host-zone.test.ts', // spies on Intl.DateTimeFormat
  'test/runner/tool-files.test.ts', // mocks node:fs
  'test/drivers/turn-timer.test.ts', // fake timers
  'test/drivers/acp-transport.test.ts', // listens for uncaughtException on the process
  'test/runner/progress-mask.test.ts', // registers "Let me check" as a credential (a capture's words)
  'test/runner/progress-events.test.ts', // registers a credential
  'test/drivers/announced.test.ts', // registers a credential
  'test/drivers/approval.test.ts', // registers a credential
  'test/queue/progress-feed.test.ts', // fake timers
  'test/core/progress.test.ts', // registers a credential
  'test/hostile/media.test.ts', // mocks node:fs and node:dns
  'test/hostile/webhook.test.ts', // mocks node:fs (hostile/spy.ts)
  'test/faults/acp-after-stop.test.ts', // spies on console.error
];

export default defineConfig({
  test: {
    globalSetup: ['test/setup/compile-cache.ts', 'test/setup/tmp-guard.ts'],
    setupFiles: ['test/setup/tmp-sweep.ts', 'test/setup/store-seen.ts'],
    // Bounds, not delays: a passing test never waits them out, and on a machine loaded by other
    // jobs a test that starts the built relay or a few Node children can need more than 20 s.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Most of the suite waits on child processes, sockets and timers rather than computing: two
    // cores keep four files going (vitest's default here would be one at a time).
    maxWorkers: 4,
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: SHARED,
          exclude: [...OTHER_ROUTES, ...NEEDS_ISOLATION, ...SKIP, 'node_modules/**'],
          isolate: false,
        },
      },
      {
        extends: true,
        // Every other folder, a new one included.
        test: {
          name: 'isolated',
          include: ['test/**/*.test.ts'],
          exclude: [...OTHER_ROUTES, ...SHARED, ...SKIP, 'node_modules/**'],
        },
      },
      { extends: true, test: { name: 'set-apart', include: NEEDS_ISOLATION, exclude: [...SKIP] } },
    ],
  },
});

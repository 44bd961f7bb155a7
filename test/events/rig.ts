// What the events runner's tests share: a real SQLite store in a temp folder of its own per test,
// the runner a test started (stopped and drained after it), and a bounded poll.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import type { SystemRunner } from '../../src/core/types.js';
import { EventRunner, type EventRunnerDeps } from '../../src/events/runner.js';
import { systemClock } from '../../src/heartbeat/clock.js';
import { openSqliteStore, type Store } from '../../src/store/sqlite/open.js';
import { waitFor } from '../e2e/helpers.js';
import { memoryLog } from '../queue/helpers.js';

// One bounded poll for every test here: e2e's.
export { waitFor };

export interface EventsRig {
  /** The test's store; `restart()` replaces it. */
  store: Store;
  /** The runner the test started, if any: stopped and drained after the test. */
  runner: EventRunner | undefined;
  /** Stops the runner, closes the store and opens the same file again, as a relay restarting. */
  restart(): Promise<void>;
  /**
   * A runner over the test's store (a memory log, the system clock), `more` over those, remembered
   * as the test's runner; not started.
   */
  runnerFor(runner: SystemRunner, more?: Partial<EventRunnerDeps>): EventRunner;
}

/** Registers the per-test set-up and clean-up; `prefix` names the temp folder. */
export function useEventsRig(prefix: string): EventsRig {
  let dir = '';
  const stopRunner = async () => {
    rig.runner?.stop();
    await rig.runner?.whenIdle();
  };
  const rig: EventsRig = {
    store: undefined as unknown as Store,
    runner: undefined,
    runnerFor(runner, more = {}) {
      rig.runner = new EventRunner({
        store: rig.store.events,
        runner,
        clock: systemClock,
        log: memoryLog().log,
        ...more,
      });
      return rig.runner;
    },
    async restart() {
      await stopRunner();
      await rig.store.close();
      rig.store = await openSqliteStore(join(dir, 'agentwire.db'));
    },
  };
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), prefix));
    rig.store = await openSqliteStore(join(dir, 'agentwire.db'));
  });
  afterEach(async () => {
    await stopRunner();
    rig.runner = undefined;
    await rig.store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return rig;
}

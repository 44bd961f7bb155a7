// What the events runner's tests share: a real SQLite store in a temp folder of its own per test,
// the runner a test started (stopped and drained after it), and a bounded poll.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import type { EventRunner } from '../../src/events/runner.js';
import { openSqliteStore, type Store } from '../../src/store/sqlite/open.js';

export interface EventsRig {
  /** The test's store; `restart()` replaces it. */
  store: Store;
  /** The runner the test started, if any: stopped and drained after the test. */
  runner: EventRunner | undefined;
  /** Stops the runner, closes the store and opens the same file again, as a relay restarting. */
  restart(): Promise<void>;
  /** `r`, remembered as the test's runner. */
  track(r: EventRunner): EventRunner;
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
    track(r) {
      rig.runner = r;
      return r;
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

/** Polls `check` every 5 ms until true or `ms` passed. */
export async function waitFor(check: () => boolean | Promise<boolean>, ms = 5000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 5));
  }
  return check();
}

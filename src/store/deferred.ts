// The deferred test engine: any engine's ports, each of whose operations is sent one event-loop
// turn later (setImmediate) and answered after it ran. That is the least a networked client (a
// PostgreSQL pool, a store in another process) adds, so code above the store that only works while
// the store answers at once fails under it. `npm run test:deferred` runs the suites with it
// (AGENTWIRE_TEST_STORE=deferred, read where stores are opened: store/sqlite/open.ts, store/sqlite/queue-sqlite.ts).
// Operations called in order still run in that order, as over one connection.
import { appendFileSync } from 'node:fs';
import { nextTurn } from '../core/next-turn.js';
import type { Store } from './store.js';

/** The variable that picks the deferred engine over SQLite: tests and CI only. */
export const TEST_STORE_ENV = 'AGENTWIRE_TEST_STORE';

/**
 * Tests only: a file to create each time a store asks which engine to be. The deferred run leaves
 * out the test files that never ask (they run the same code either way), and `npm test` checks
 * with this that each file it calls store-free really never asked (test/setup/store-seen.ts).
 */
export const STORE_SEEN_ENV = 'AGENTWIRE_TEST_STORE_SEEN';

/** True when this process was asked to answer every store operation a turn later. */
export function deferredWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  const seen = env[STORE_SEEN_ENV];
  if (seen) markSeen(seen);
  return env[TEST_STORE_ENV] === 'deferred';
}

function markSeen(file: string): void {
  try {
    appendFileSync(file, '');
  } catch {
    // The test that set it has ended and removed its folder: nothing is left to tell.
  }
}

/** The same port, each operation run one turn after the call and its answer one turn after that. */
export function deferredPort<T extends object>(port: T): T {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(port)) {
    out[name] =
      typeof value === 'function'
        ? async (...args: unknown[]) => {
            await nextTurn();
            const answer = await (value as (...a: unknown[]) => unknown).apply(port, args);
            await nextTurn();
            return answer;
          }
        : value;
  }
  return out as T;
}

/** Every port of `store`, deferred (store.channelState hands out deferred ports too). */
export function deferredStore(store: Store): Store {
  const rest = deferredPort({
    unsentFiles: store.unsentFiles,
    repliesFor: store.repliesFor,
    pruneOldMessages: store.pruneOldMessages,
    close: store.close,
  });
  return {
    whatsapp: {
      auth: deferredPort(store.whatsapp.auth),
      sent: deferredPort(store.whatsapp.sent),
      chats: deferredPort(store.whatsapp.chats),
    },
    twilio: deferredPort(store.twilio),
    mediaLinks: deferredPort(store.mediaLinks),
    incidents: deferredPort(store.incidents),
    jobStates: deferredPort(store.jobStates),
    tasks: deferredPort(store.tasks),
    events: deferredPort(store.events),
    interactions: deferredPort(store.interactions),
    status: deferredPort(store.status),
    ...rest,
    queue: deferredPort(store.queue),
    ownership: deferredPort(store.ownership),
    channelState: (channel) => deferredPort(store.channelState(channel)),
  };
}

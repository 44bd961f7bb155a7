// Whether the store answers, watched over every operation of every port: when a networked store
// (PostgreSQL) goes away, each loop of the relay (the queue, the deliverer, the ownership timer, a
// webhook) meets its own failure, and each would log it its own way. This says it once, in one
// clear line, when the first operation finds the store unreachable, and once more when it has
// answered again for a settling while (`settleMs`) with no operation finding it unreachable in
// between: a server that is shutting down can still answer a statement or two between refusals,
// and that flap is one outage, not two. Meanwhile the callers keep their own handling (a webhook
// answers 503, the queue retries). Engine-free: it reads only the store's own failure words
// (store/errors.ts).
import { StoreError } from './errors.js';
import type { Store } from './store.js';

export interface AvailabilityEvents {
  /** The first operation that found the store unreachable, with the store's own message. */
  down(message: string): void;
  /** The store has answered for `settleMs` since its first success, with how long it was away. */
  up(downForMs: number): void;
}

export interface AvailabilityOptions {
  now?: () => number;
  /** How long the store must answer, with no operation finding it unreachable, before `up`. */
  settleMs?: number;
}

/** Long enough to cover a server's own shutdown (a statement answered between refusals came 19 ms
 * after the first refusal under `pg_ctl stop`), short enough that "back" is said while it matters. */
export const SETTLE_MS = 2000;

/** True when an outcome (a rejection, or a write's refusal as a value) says the store cannot be reached. */
function unreachable(outcome: unknown): string | undefined {
  if (outcome instanceof StoreError) return outcome.reason === 'unavailable' ? outcome.message : undefined;
  const v = outcome as { ok?: unknown; reason?: unknown; message?: unknown } | null;
  if (v && typeof v === 'object' && v.ok === false && v.reason === 'unavailable') return String(v.message);
  return undefined;
}

export function availabilityWatch(events: AvailabilityEvents, opts: AvailabilityOptions = {}) {
  const now = opts.now ?? Date.now;
  const settleMs = opts.settleMs ?? SETTLE_MS;
  // downSince: an outage has been said and its end not yet; settling: the timer that will say it.
  let downSince: number | undefined;
  let settling: NodeJS.Timeout | undefined;
  let lastUnreachable = false;
  const saw = (outcome: unknown, rejected: boolean) => {
    const lost = unreachable(outcome);
    if (lost !== undefined) {
      lastUnreachable = true;
      if (downSince === undefined) {
        downSince = now();
        events.down(lost);
      } else if (settling) {
        // Unreachable again while settling: the same outage goes on.
        clearTimeout(settling);
        settling = undefined;
      }
    } else if (!rejected) {
      // Only a success says it is back: a rejection for another reason (a conflict) says nothing.
      lastUnreachable = false;
      if (downSince !== undefined && !settling) {
        const since = downSince;
        const backAt = now();
        settling = setTimeout(() => {
          settling = undefined;
          downSince = undefined;
          events.up(backAt - since);
        }, settleMs);
        // A relay stopping meanwhile is not held up to say it.
        settling.unref();
      }
    }
  };
  const port = <T extends object>(p: T): T => {
    const out: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(p)) {
      out[name] =
        typeof value === 'function'
          ? async (...args: unknown[]) => {
              try {
                const r = await (value as (...a: unknown[]) => unknown).apply(p, args);
                saw(r, false);
                return r;
              } catch (err) {
                saw(err, true);
                throw err;
              }
            }
          : value;
    }
    return out as T;
  };
  return {
    /** Whether the last operation that said anything found the store unreachable. */
    down: () => lastUnreachable,
    /** Every port of `store`, watched (`close` passes straight through). */
    store: (store: Store): Store => ({
      whatsapp: {
        auth: port(store.whatsapp.auth),
        sent: port(store.whatsapp.sent),
        chats: port(store.whatsapp.chats),
      },
      twilio: port(store.twilio),
      mediaLinks: port(store.mediaLinks),
      incidents: port(store.incidents),
      jobStates: port(store.jobStates),
      tasks: port(store.tasks),
      events: port(store.events),
      interactions: port(store.interactions),
      status: port(store.status),
      ...port({
        unsentFiles: store.unsentFiles,
        repliesFor: store.repliesFor,
        pruneOldMessages: store.pruneOldMessages,
      }),
      close: store.close,
      queue: port(store.queue),
      ownership: port(store.ownership),
      channelState: (channel) => port(store.channelState(channel)),
    }),
  };
}

// What a store operation fails with, in the store's own words, whatever the engine: callers learn
// whether waiting may help and never see an engine's error codes, so another engine (a networked
// one) fails the same way. The message is kept (it names the cause for the log). This file imports
// no engine: the SQLite codes are read in store/sqlite/sqlite-errors.ts.

/**
 * Why a store operation failed:
 * - `full`: no room (a full disk, a quota);
 * - `busy`: a lock was held too long by another connection;
 * - `io`: the medium failed a read or a write;
 * - `conflict`: the transaction lost to a concurrent one (a serialisation failure) and was undone;
 * - `unavailable`: the store cannot be reached or written now (a read-only file, a server down);
 * - `other`: anything else, a bug: retrying the same operation would fail the same way.
 */
export type StoreFailureReason = 'full' | 'busy' | 'io' | 'conflict' | 'unavailable' | 'other';

/** Whether the same operation may succeed later with nothing changed on our side. */
const RETRYABLE: Record<StoreFailureReason, boolean> = {
  full: true,
  busy: true,
  io: true,
  conflict: true,
  unavailable: true,
  other: false,
};

export interface StoreFailure {
  ok: false;
  reason: StoreFailureReason;
  /** True when the same operation may succeed later without anything changed (all but `other`). */
  retryable: boolean;
  message: string;
}

/** A failure for `reason`, its `retryable` flag set by the one table above. */
export function storeFailure(reason: StoreFailureReason, message: string): StoreFailure {
  return { ok: false, reason, retryable: RETRYABLE[reason], message };
}

/** The rejection of every operation of the store's ports: carries a StoreFailure. */
export class StoreError extends Error {
  readonly failure: StoreFailure;
  constructor(failure: StoreFailure) {
    super(failure.message);
    this.name = 'StoreError';
    this.failure = failure;
  }
  get reason(): StoreFailureReason {
    return this.failure.reason;
  }
  get retryable(): boolean {
    return this.failure.retryable;
  }
}

/**
 * A write's outcome as a value: its result, or the store's refusal (the queue retries a write the
 * store refused for a passing reason, queue/persist.ts, and treats anything else as a bug).
 */
export type Written<T> = { ok: true; value: T } | StoreFailure;

/**
 * The same port, each of whose operations rejects with a StoreError made by `failureOf` from
 * whatever the engine threw or rejected with (a StoreError keeps its own failure).
 */
export function guarded<T extends object>(port: T, failureOf: (err: unknown) => StoreFailure): T {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(port)) {
    out[name] =
      typeof value === 'function'
        ? async (...args: unknown[]) => {
            try {
              return await (value as (...a: unknown[]) => unknown).apply(port, args);
            } catch (err) {
              throw err instanceof StoreError ? err : new StoreError(failureOf(err));
            }
          }
        : value;
  }
  return out as T;
}

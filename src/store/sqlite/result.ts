// The SQLite engine's way of answering the queue's operations: a write resolves with a `Written`
// value (store/errors.ts) instead of throwing, a read rejects with a StoreError. Only the store knows
// what an engine's errors mean; the queue sees `reason` and `retryable`, never an error code.
import { StoreError, type Written } from '../errors.js';
import { sqliteFailure } from './sqlite-errors.js';

export type { Written } from '../errors.js';

import { FenceConflict } from '../ownership.js';

/** Runs a synchronous write and resolves with its value or the store's refusal as a value. */
export function written<T>(write: () => T): Promise<Written<T>> {
  try {
    return Promise.resolve({ ok: true, value: write() });
  } catch (err) {
    // A fence that no longer holds: the chat's lease moved, and the same write would be refused again.
    if (err instanceof FenceConflict) return Promise.resolve(err.failure);
    return Promise.resolve(sqliteFailure(err));
  }
}

/** A read: resolves with its value, or rejects with a StoreError. */
export function read<T>(fn: () => T): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (err) {
    return Promise.reject(new StoreError(sqliteFailure(err)));
  }
}

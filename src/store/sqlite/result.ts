// The SQLite engine's way of answering the queue's writes: a write resolves with a `Written` value
// (store/errors.ts) instead of throwing. A read needs nothing of its own: the port is `guarded`
// (sqlite-errors.ts), which turns whatever node:sqlite throws into a StoreError rejection. Only the
// store knows what an engine's errors mean; the queue sees `reason` and `retryable`, never a code.
import type { Written } from '../errors.js';
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

// What a store write returns instead of throwing: the queue retries a write the store refused for a
// passing reason (a full disk, an I/O error, a lock held too long) and treats anything else as a bug.
// Only the store knows what an engine's errors mean; the queue sees `retryable`, never an error code.

import { FenceConflict } from './ownership.js';

/** `reason: 'conflict'`: a run-side write refused because the chat's lease moved (never retried). */
export type Written<T> =
  | { ok: true; value: T }
  | { ok: false; retryable: boolean; error: string; reason?: 'conflict' };

// SQLite primary result codes (the low byte of an extended code) that go away by themselves.
const SQLITE_BUSY = 5;
const SQLITE_LOCKED = 6;
const SQLITE_IOERR = 10;
const SQLITE_FULL = 13;
const TRANSIENT = new Set([SQLITE_BUSY, SQLITE_LOCKED, SQLITE_IOERR, SQLITE_FULL]);

/** True for an error node:sqlite (or the file system under it) raises when the disk is full or busy. */
export function isTransientStoreError(err: unknown): boolean {
  const e = err as { code?: unknown; errcode?: unknown } | undefined;
  if (typeof e?.errcode === 'number') return TRANSIENT.has(e.errcode & 0xff);
  return e?.code === 'ENOSPC' || e?.code === 'EIO' || e?.code === 'EDQUOT';
}

/**
 * Runs a synchronous write and resolves with its value or the refusal as a value. The SQL runs at
 * call time, before the Promise is returned: callers that count on a write being in the store when
 * the call returns (the lane order) keep that with this engine.
 */
export function written<T>(write: () => T): Promise<Written<T>> {
  try {
    return Promise.resolve({ ok: true, value: write() });
  } catch (err) {
    if (err instanceof FenceConflict) return Promise.resolve(err.failure);
    return Promise.resolve({
      ok: false,
      retryable: isTransientStoreError(err),
      error: (err as Error)?.message ?? String(err),
    });
  }
}

/** A read: resolves with its value, or rejects (a read that fails is a broken store, not a full disk). */
export function read<T>(fn: () => T): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (err) {
    return Promise.reject(err);
  }
}

// What a store operation fails with, in the store's own words: callers learn whether waiting may
// help (a full disk, an I/O error, a lock held too long) and never see an engine's error codes, so
// another engine can fail the same way. The message is kept (it names the cause for the log).

/** Why a store operation failed. */
export type StoreFailureReason = 'full' | 'busy' | 'io' | 'other';

export interface StoreFailure {
  ok: false;
  reason: StoreFailureReason;
  /** True when the same operation may succeed later without anything changed (full, busy, io). */
  retryable: boolean;
  message: string;
}

/** The rejection of every operation of the store's ports (store/open.ts): carries a StoreFailure. */
export class StoreError extends Error {
  readonly failure: StoreFailure;
  constructor(failure: StoreFailure) {
    super(failure.message);
    this.name = 'StoreError';
    this.failure = failure;
  }
  get retryable(): boolean {
    return this.failure.retryable;
  }
}

// SQLite primary result codes (the low byte of an extended code).
const REASONS: Record<number, StoreFailureReason> = { 5: 'busy', 6: 'busy', 10: 'io', 13: 'full' };
const ERRNO: Record<string, StoreFailureReason> = { ENOSPC: 'full', EDQUOT: 'full', EIO: 'io' };

/** The failure an engine error means; a StoreError keeps its own. */
export function storeFailure(err: unknown): StoreFailure {
  if (err instanceof StoreError) return err.failure;
  const e = err as { code?: unknown; errcode?: unknown; message?: unknown } | undefined;
  const reason =
    (typeof e?.errcode === 'number' ? REASONS[e.errcode & 0xff] : undefined) ??
    (typeof e?.code === 'string' ? ERRNO[e.code] : undefined) ??
    'other';
  const message = typeof e?.message === 'string' ? e.message : String(err);
  return { ok: false, reason, retryable: reason !== 'other', message };
}

/**
 * The same port, each of whose operations rejects with a StoreError instead of the engine's error
 * (the node:sqlite ports do their work synchronously, so a throw inside becomes this rejection).
 */
export function guarded<T extends object>(port: T): T {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(port)) {
    out[name] =
      typeof value === 'function'
        ? async (...args: unknown[]) => {
            try {
              return await (value as (...a: unknown[]) => unknown).apply(port, args);
            } catch (err) {
              throw new StoreError(storeFailure(err));
            }
          }
        : value;
  }
  return out as T;
}

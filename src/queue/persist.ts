// A write the relay cannot skip (a run's start, its answer, a reply marked sent) is retried while the
// store refuses it for a passing reason (a full disk, an I/O error, a lock held too long) instead of
// crashing the relay or losing the answer: the chat waits, in order, and carries on once the store
// takes writes again. Any other error is a bug and is thrown at once, never retried in a loop.
import type { Logger } from '../log.js';

// SQLite primary result codes (the low byte of an extended code) that go away by themselves.
const SQLITE_BUSY = 5;
const SQLITE_LOCKED = 6;
const SQLITE_IOERR = 10;
const SQLITE_FULL = 13;
const TRANSIENT = new Set([SQLITE_BUSY, SQLITE_LOCKED, SQLITE_IOERR, SQLITE_FULL]);
const MAX_DELAY_MS = 30_000;

/** True for an error node:sqlite (or the file system under it) raises when the disk is full or busy. */
export function isTransientStoreError(err: unknown): boolean {
  const e = err as { code?: unknown; errcode?: unknown } | undefined;
  if (typeof e?.errcode === 'number') return TRANSIENT.has(e.errcode & 0xff);
  return e?.code === 'ENOSPC' || e?.code === 'EIO' || e?.code === 'EDQUOT';
}

export interface PersistOptions {
  /** What the write does, for the log ("record the answer"). */
  what: string;
  log: Logger;
  /** Fields logged with each refusal (chat, ids). */
  fields: Record<string, unknown>;
  /** The first wait; it doubles up to 30 s. */
  baseMs: number;
  /** Waiting ends when this aborts (shutdown, /stop): the caller leaves the rows for recovery. */
  signal?: AbortSignal;
}

export type Persisted<T> = { ok: true; value: T } | { ok: false };

export async function persist<T>(write: () => T, opts: PersistOptions): Promise<Persisted<T>> {
  for (let attempt = 1; ; attempt++) {
    try {
      return { ok: true, value: write() };
    } catch (err) {
      if (!isTransientStoreError(err)) throw err;
      if (opts.signal?.aborted) return { ok: false };
      const wait = Math.min(MAX_DELAY_MS, opts.baseMs * 2 ** Math.min(attempt - 1, 20));
      opts.log.error(
        { ...opts.fields, err, attempt, retryInMs: wait },
        `the store refused to ${opts.what}; retrying`,
      );
      if (!(await sleep(wait, opts.signal))) return { ok: false };
    }
  }
}

/** Resolves true after `ms`, or false as soon as `signal` aborts. */
function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const onAbort = () => {
      clearTimeout(t);
      resolve(false);
    };
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

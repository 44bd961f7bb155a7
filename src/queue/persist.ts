// A write the relay cannot skip (a run's start, its answer, a reply marked sent) is retried while the
// store refuses it for a passing reason (a full disk, an I/O error, a lock held too long) instead of
// crashing the relay or losing the answer: the chat waits, in order, and carries on once the store
// takes writes again. Any other refusal is a bug and is thrown at once, never retried in a loop.
// What counts as passing is the store's to say (`retryable`, store/errors.ts).
import type { Logger } from '../log.js';
import { StoreError } from '../store/errors.js';
import type { Written } from '../store/queue-ops.js';

const MAX_DELAY_MS = 30_000;

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

/** The value of a write, or a thrown StoreError when the store refused it. */
export function unwrap<T>(w: Written<T>): T {
  if (!w.ok) throw new StoreError(w);
  return w.value;
}

export async function persist<T>(
  write: () => Promise<Written<T>>,
  opts: PersistOptions,
): Promise<Persisted<T>> {
  for (let attempt = 1; ; attempt++) {
    const w = await write();
    if (w.ok) return { ok: true, value: w.value };
    if (!w.retryable) throw new StoreError(w);
    if (opts.signal?.aborted) return { ok: false };
    const wait = Math.min(MAX_DELAY_MS, opts.baseMs * 2 ** Math.min(attempt - 1, 20));
    opts.log.error(
      { ...opts.fields, err: w.message, reason: w.reason, attempt, retryInMs: wait },
      `the store refused to ${opts.what}; retrying`,
    );
    if (!(await sleep(wait, opts.signal))) return { ok: false };
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

// How the PostgreSQL engine answers (store/queue-ops.ts): a write resolves with a `Written` value, a
// read rejects with a StoreError; what PostgreSQL or the socket threw is read in postgres/errors.ts.
import { StoreError, type Written } from '../errors.js';
import { pgFailure } from './errors.js';

export async function written<T>(fn: () => Promise<T>): Promise<Written<T>> {
  try {
    return { ok: true, value: await fn() };
  } catch (err) {
    return pgFailure(err);
  }
}

export async function read<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw new StoreError(pgFailure(err));
  }
}

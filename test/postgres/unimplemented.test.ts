// The ports the PostgreSQL engine does not implement yet (docs/scale-out.md) must not pass for
// working ones: every operation rejects with a StoreError that names it, and nothing else breaks.
import { afterEach, describe, expect, it } from 'vitest';
import { StoreError } from '../../src/store/errors.js';
import type { Store } from '../../src/store/open.js';
import { openPostgresStore } from '../../src/store/postgres/store.js';
import { freshDatabase } from '../support/postgres-db.js';

let store: Store | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
});

describe('ports the PostgreSQL engine does not implement yet', () => {
  it('reject every operation with a StoreError naming the operation', async () => {
    const s = await openPostgresStore(await freshDatabase());
    store = s;
    const calls: [string, () => Promise<unknown>][] = [['status.', () => s.status.read()]];
    for (const [name, call] of calls) {
      const err = await call().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(StoreError);
      expect(err).toMatchObject({ reason: 'other', retryable: false });
      expect((err as Error).message).toContain(`does not implement ${name}`);
    }
    // The implemented ports still answer.
    expect(await s.queue.countPending('console:local')).toBe(0);
  });
});

// openStore(config) (store/open.ts): the engine is picked from the config and names its own file;
// an opening that fails rejects with a StoreError, never with node:sqlite's error.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { StoreError } from '../../src/store/errors.js';
import { openStore, storeAdmin, storeConfigFor } from '../../src/store/open.js';
import { tempDir } from '../helpers/tmp.js';

describe('openStore(config)', () => {
  it('opens the SQLite store of a state folder, and the admin port names its files', async () => {
    const home = tempDir('aw-open-');
    const admin = await storeAdmin(storeConfigFor({ home }));
    expect(admin.localFiles()).toEqual([]);
    expect(await admin.statusFacts()).toBeUndefined();
    const store = await openStore(storeConfigFor({ home }));
    try {
      await store.channelState('warm').set('fallbacks', { codex: { reason: 'r' } });
      expect(admin.localFiles().length).toBeGreaterThan(0);
      for (const f of admin.localFiles()) expect(existsSync(f) && f.startsWith(home)).toBe(true);
      expect(JSON.parse((await admin.channelValue('warm', 'fallbacks')) ?? 'null')).toEqual({
        codex: { reason: 'r' },
      });
      expect(await admin.statusFacts()).toMatchObject({ pending: {} });
    } finally {
      await store.close();
    }
  });

  it('rejects with a StoreError when the state folder cannot hold a store', async () => {
    const file = join(tempDir('aw-open-bad-'), 'not-a-folder');
    writeFileSync(file, 'x');
    const err = await openStore({ engine: 'sqlite', stateDir: file }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(StoreError);
    expect((err as StoreError).failure.ok).toBe(false);
  });
});

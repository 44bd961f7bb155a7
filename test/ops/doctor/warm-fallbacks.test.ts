// doctor shows a failed warm start the relay remembered (read-only from the store file), with how
// to try warm again; nothing when none is remembered or there is no store yet.
import { describe, expect, it } from 'vitest';
import { WARM_STATE, warmMemory } from '../../../src/drivers/warm-memory.js';
import { checkWarmFallbacks } from '../../../src/ops/doctor/warm-fallbacks.js';
import { openStore, storeAdmin } from '../../../src/store/open.js';
import { tempDir } from '../../helpers/tmp.js';

describe('doctor: remembered warm start failures', () => {
  it('lists each with its reason and the reset command', async () => {
    const config = { engine: 'sqlite', stateDir: tempDir('aw-doc-warm-') } as const;
    const admin = await storeAdmin(config);
    expect(await checkWarmFallbacks(admin)).toEqual([]);
    const store = await openStore(config);
    try {
      const memory = warmMemory(store.channelState(WARM_STATE.channel));
      expect(await checkWarmFallbacks(admin)).toEqual([]);
      await memory.save({
        codex: { fingerprint: 'f', reason: 'timeout: no answer to its start within 20 s', at: 1 },
      });
      const [f, ...rest] = await checkWarmFallbacks(admin);
      expect(rest).toEqual([]);
      expect(f).toMatchObject({ check: 'warm:codex', status: 'warn' });
      expect(f?.message).toContain('codex runs cold: its warm start failed (timeout: no answer');
      expect(f?.fix).toContain('agentwire agent warm-reset codex');
    } finally {
      await store.close();
    }
  });
});

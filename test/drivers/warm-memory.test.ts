// The fingerprint of what a warm start ran, and the fallback records over a real store: a changed
// start is tried warm again, a reset forgets, and a new Fallbacks reads what an earlier one stored.
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { AgentResult } from '../../src/agents/types.js';
import { Fallbacks } from '../../src/drivers/pool-fallback.js';
import { startFingerprint, WARM_STATE, warmMemory } from '../../src/drivers/warm-memory.js';
import { createLogger } from '../../src/log.js';
import { openSqliteStore } from '../../src/store/sqlite/open.js';

const dir = mkdtempSync(join(tmpdir(), 'aw-warm-mem-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const bin = join(dir, 'mycli');
writeFileSync(bin, '#!/bin/sh\n');
const env = { PATH: dir, HOME: '/h', TOKEN: 'a' };
const base = startFingerprint(['mycli', 'x'], env);
const log = createLogger({ level: 'silent' });

describe('startFingerprint', () => {
  it.each([
    ['another argument', ['mycli', 'y'], env, false],
    ['another env name', ['mycli', 'x'], { ...env, MORE: '1' }, false],
    ['another env value (values are not in it)', ['mycli', 'x'], { ...env, TOKEN: 'b' }, true],
    ['the same start', ['mycli', 'x'], { ...env }, true],
  ])('%s', (_name, command, e, same) => {
    expect(startFingerprint(command, e) === base).toBe(same);
  });

  it('changes when the program file changes (an upgrade)', () => {
    writeFileSync(bin, '#!/bin/sh\n# newer\n');
    utimesSync(bin, new Date(), new Date(Date.now() + 5000));
    expect(startFingerprint(['mycli', 'x'], env)).not.toBe(base);
  });
});

describe('Fallbacks over the store', () => {
  const ok: AgentResult = {
    type: 'ok',
    text: 'cold',
    progress: [],
    media: [],
    truncated: false,
    durationMs: 1,
  };
  const req = {} as never;

  it('remembers across instances, forgets on another fingerprint and on reset', async () => {
    const store = await openSqliteStore(join(dir, 'db.sqlite'));
    try {
      const memory = () => warmMemory(store.channelState(WARM_STATE.channel));
      const a = new Fallbacks(async () => ok, log, memory());
      expect(await a.has('codex', 'f1')).toBe(false);
      await a.fallBack('codex', 'timeout: no answer', req, undefined, 'f1');
      // A restart: a new instance reads the store.
      const b = new Fallbacks(async () => ok, log, memory());
      expect(await b.has('codex', 'f1')).toBe(true);
      expect(b.list()).toEqual([{ kind: 'codex', reason: 'timeout: no answer' }]);
      // What is started changed: tried warm again, and the store forgets it too.
      expect(await b.has('codex', 'f2')).toBe(false);
      expect(await new Fallbacks(async () => ok, log, memory()).has('codex', 'f1')).toBe(false);
      // reset forgets a stored failure.
      await b.fallBack('claude', 'exit: 2', req, undefined, 'g');
      expect(await b.reset('claude')).toEqual(['claude']);
      expect(await new Fallbacks(async () => ok, log, memory()).has('claude', 'g')).toBe(false);
    } finally {
      await store.close();
    }
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { channelStateStore, forgetSeenBefore } from '../../src/store/sqlite/channel-state.js';
import { tempDb } from './helpers.js';

describe('channel state (the generic per-channel store port)', () => {
  const opened: ReturnType<typeof tempDb>[] = [];
  afterEach(() => {
    for (const t of opened.splice(0)) t.cleanup();
  });
  const open = () => {
    const t = tempDb();
    opened.push(t);
    return t;
  };

  it('keeps JSON values per channel, survives a reopen, and deletes with undefined', async () => {
    const { db, reopen } = open();
    const a = channelStateStore(db, 'alpha');
    const b = channelStateStore(db, 'beta');
    await a.set('offset', 41);
    await a.set('offset', 42);
    await a.set('cfg', { x: [1, 'two'] });
    await b.set('offset', 7);
    expect(await a.get('offset')).toBe(42);
    expect(await b.get('offset')).toBe(7);
    expect(await channelStateStore(reopen(), 'alpha').get('cfg')).toEqual({ x: [1, 'two'] });
    await a.set('offset', undefined);
    expect(await a.get('offset')).toBeUndefined();
    expect(await b.get('offset')).toBe(7);
    expect(await a.get('never')).toBeUndefined();
  });

  it('seen: false the first time, true after, per channel, across a reopen', async () => {
    const { db, reopen } = open();
    const a = channelStateStore(db, 'alpha');
    expect(await a.seen('update:1')).toBe(false);
    expect(await a.seen('update:1')).toBe(true);
    expect(await channelStateStore(db, 'beta').seen('update:1')).toBe(false);
    expect(await channelStateStore(reopen(), 'alpha').seen('update:1')).toBe(true);
  });

  it('forgets seen keys older than the cut-off only', async () => {
    const { db } = open();
    let t = 1_000;
    const a = channelStateStore(db, 'alpha', () => t);
    await a.seen('old');
    t = 5_000;
    await a.seen('new');
    expect(await forgetSeenBefore(db, 2_000)).toBe(1);
    expect(await a.seen('old')).toBe(false);
    expect(await a.seen('new')).toBe(true);
  });
});

import { describe, expect, it } from 'vitest';
import { isTransientStoreError, persist } from '../../src/queue/persist.js';
import { memoryLog } from './helpers.js';

const sqlite = (errcode: number) => Object.assign(new Error('x'), { code: 'ERR_SQLITE_ERROR', errcode });

describe('isTransientStoreError', () => {
  it.each([
    ['SQLITE_FULL', sqlite(13), true],
    ['SQLITE_BUSY', sqlite(5), true],
    ['SQLITE_LOCKED', sqlite(6), true],
    ['SQLITE_IOERR_WRITE (extended)', sqlite(10 | (3 << 8)), true],
    ['ENOSPC from the file system', Object.assign(new Error('x'), { code: 'ENOSPC' }), true],
    ['SQLITE_CONSTRAINT (a bug, not the disk)', sqlite(19), false],
    ['SQL logic error', sqlite(1), false],
    ['a plain error', new Error('boom'), false],
    ['not an error', undefined, false],
  ])('%s → %s', (_name, err, transient) => {
    expect(isTransientStoreError(err)).toBe(transient);
  });
});

describe('persist', () => {
  it('retries a full disk until the write goes through', async () => {
    const { log, lines } = memoryLog();
    let calls = 0;
    const out = await persist(
      () => {
        if (++calls < 3) throw sqlite(13);
        return 'written';
      },
      { what: 'write', log, fields: {}, baseMs: 1 },
    );
    expect(out).toEqual({ ok: true, value: 'written' });
    expect(lines.filter((l) => l.msg === 'the store refused to write; retrying')).toHaveLength(2);
  });

  it('throws any other error at once, never retrying a bug', async () => {
    const { log } = memoryLog();
    let calls = 0;
    const bug = () => {
      calls++;
      throw sqlite(19);
    };
    await expect(persist(bug, { what: 'write', log, fields: {}, baseMs: 1 })).rejects.toThrow('x');
    expect(calls).toBe(1);
  });

  it('gives up when stopped while waiting', async () => {
    const { log } = memoryLog();
    const stop = new AbortController();
    const out = persist(
      () => {
        stop.abort();
        throw sqlite(13);
      },
      { what: 'write', log, fields: {}, baseMs: 60_000, signal: stop.signal },
    );
    expect(await out).toEqual({ ok: false });
  });
});

import { describe, expect, it } from 'vitest';
import { persist } from '../../src/queue/persist.js';
import { isTransientStoreError, written } from '../../src/store/result.js';
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

describe('written: a store write as a value', () => {
  it.each([
    ['a full disk is retryable', sqlite(13), { ok: false, retryable: true, error: 'x' }],
    ['a constraint is not', sqlite(19), { ok: false, retryable: false, error: 'x' }],
  ])('%s', async (_name, err, out) => {
    expect(
      await written(() => {
        throw err;
      }),
    ).toEqual(out);
  });

  it('runs the write at call time, before the Promise is awaited', () => {
    let ran = false;
    void written(() => {
      ran = true;
    });
    expect(ran).toBe(true);
  });
});

describe('persist', () => {
  it('retries a full disk until the write goes through', async () => {
    const { log, lines } = memoryLog();
    let calls = 0;
    const out = await persist(
      () =>
        written(() => {
          if (++calls < 3) throw sqlite(13);
          return 'written';
        }),
      { what: 'write', log, fields: {}, baseMs: 1 },
    );
    expect(out).toEqual({ ok: true, value: 'written' });
    expect(lines.filter((l) => l.msg === 'the store refused to write; retrying')).toHaveLength(2);
  });

  it('throws any other error at once, never retrying a bug', async () => {
    const { log } = memoryLog();
    let calls = 0;
    const bug = () =>
      written(() => {
        calls++;
        throw sqlite(19);
      });
    await expect(persist(bug, { what: 'write', log, fields: {}, baseMs: 1 })).rejects.toThrow('x');
    expect(calls).toBe(1);
  });

  it('gives up when stopped while waiting', async () => {
    const { log } = memoryLog();
    const stop = new AbortController();
    const out = persist(
      () =>
        written(() => {
          stop.abort();
          throw sqlite(13);
        }),
      { what: 'write', log, fields: {}, baseMs: 60_000, signal: stop.signal },
    );
    expect(await out).toEqual({ ok: false });
  });
});

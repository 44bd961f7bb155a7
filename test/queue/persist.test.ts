import { describe, expect, it } from 'vitest';
import { persist } from '../../src/queue/persist.js';
import { StoreError } from '../../src/store/errors.js';
import { written } from '../../src/store/sqlite/result.js';
import { sqliteFailure } from '../../src/store/sqlite/sqlite-errors.js';
import { memoryLog } from './helpers.js';

const sqlite = (errcode: number) => Object.assign(new Error('x'), { code: 'ERR_SQLITE_ERROR', errcode });

describe('sqliteFailure: the one table of SQLite codes', () => {
  it.each([
    ['SQLITE_FULL', sqlite(13), 'full', true],
    ['SQLITE_BUSY', sqlite(5), 'busy', true],
    ['SQLITE_LOCKED', sqlite(6), 'busy', true],
    ['SQLITE_BUSY_SNAPSHOT (lost to a writer)', sqlite(5 | (2 << 8)), 'conflict', true],
    ['SQLITE_IOERR_WRITE (extended)', sqlite(10 | (3 << 8)), 'io', true],
    ['SQLITE_READONLY_DBMOVED (extended)', sqlite(8 | (4 << 8)), 'unavailable', true],
    ['SQLITE_CANTOPEN', sqlite(14), 'unavailable', true],
    ['ENOSPC from the file system', Object.assign(new Error('x'), { code: 'ENOSPC' }), 'full', true],
    ['SQLITE_CONSTRAINT (a bug, not the disk)', sqlite(19), 'other', false],
    ['SQL logic error', sqlite(1), 'other', false],
    ['a plain error', new Error('boom'), 'other', false],
    ['not an error', undefined, 'other', false],
  ])('%s → %s', (_name, err, reason, retryable) => {
    expect(sqliteFailure(err)).toMatchObject({ ok: false, reason, retryable });
  });
});

describe('written: a store write as a value', () => {
  it.each([
    ['a full disk is retryable', sqlite(13), { ok: false, reason: 'full', retryable: true, message: 'x' }],
    ['a constraint is not', sqlite(19), { ok: false, reason: 'other', retryable: false, message: 'x' }],
  ])('%s', async (_name, err, out) => {
    expect(
      await written(() => {
        throw err;
      }),
    ).toEqual(out);
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

  it('throws any other failure at once as a StoreError, never retrying a bug', async () => {
    const { log } = memoryLog();
    let calls = 0;
    const bug = () =>
      written(() => {
        calls++;
        throw sqlite(19);
      });
    const err = await persist(bug, { what: 'write', log, fields: {}, baseMs: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect(err).toMatchObject({ reason: 'other', retryable: false, message: 'x' });
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

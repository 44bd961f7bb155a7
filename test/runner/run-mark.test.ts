// The run mark is found only as a whole environment entry with exactly the run's value.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findMarked, RUN_MARK_ENV } from '../../src/runner/run-mark.js';

const proc = mkdtempSync(join(tmpdir(), 'aw-proc-'));
afterAll(() => rmSync(proc, { recursive: true, force: true }));

function fakeProcess(pid: number | string, env: string[] | undefined): void {
  mkdirSync(join(proc, String(pid)), { recursive: true });
  if (env) writeFileSync(join(proc, String(pid), 'environ'), env.map((e) => `${e}\0`).join(''));
}

describe('findMarked', () => {
  it('finds the processes that carry the mark, and no others', () => {
    const mark = 'run-1';
    fakeProcess(101, [`${RUN_MARK_ENV}=${mark}`, 'PATH=/bin']); // first entry
    fakeProcess(102, ['PATH=/bin', `${RUN_MARK_ENV}=${mark}`]); // last entry
    fakeProcess(103, ['PATH=/bin', `${RUN_MARK_ENV}=${mark}2`]); // another run whose id starts alike
    fakeProcess(104, [`X${RUN_MARK_ENV}=${mark}`]); // another variable ending alike
    fakeProcess(105, [`NOTE=${RUN_MARK_ENV}=${mark}`]); // inside another value
    fakeProcess(106, undefined); // environ unreadable (ended, or another user's)
    fakeProcess('self', [`${RUN_MARK_ENV}=${mark}`]); // not a pid
    fakeProcess(process.pid, [`${RUN_MARK_ENV}=${mark}`]); // never the relay itself
    expect(findMarked(mark, proc).toSorted()).toEqual([101, 102]);
    expect(findMarked('run-0', proc)).toEqual([]);
  });
});

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireLock, pidAlive } from '../../src/control/lock.js';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A PID that certainly belonged to a process that has exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(r.stdout.toString());
}

describe('relay lock', () => {
  it('is taken once; a second owner is refused with the holder PID; release frees it', () => {
    dir = mkdtempSync(join(tmpdir(), 'aw-lock-'));
    const path = join(dir, 'relay.lock');
    const first = acquireLock(path);
    expect(first.ok).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    // Another live process (this one's parent) trying to take it is refused.
    expect(acquireLock(path, process.ppid)).toEqual({ ok: false, pid: process.pid });
    if (first.ok) first.release();
    const again = acquireLock(path, process.ppid);
    expect(again.ok).toBe(true);
    expect(readFileSync(path, 'utf8').trim()).toBe(String(process.ppid));
  });

  it('takes over a lock left by a dead PID, and an unreadable one', () => {
    dir = mkdtempSync(join(tmpdir(), 'aw-lock-'));
    const path = join(dir, 'relay.lock');
    const dead = deadPid();
    expect(pidAlive(dead)).toBe(false);
    writeFileSync(path, `${dead}\n`);
    expect(acquireLock(path).ok).toBe(true);
    expect(readFileSync(path, 'utf8').trim()).toBe(String(process.pid));
    writeFileSync(path, 'garbage');
    expect(acquireLock(path).ok).toBe(true);
  });

  it('release leaves a lock that is no longer ours alone', () => {
    dir = mkdtempSync(join(tmpdir(), 'aw-lock-'));
    const path = join(dir, 'relay.lock');
    const mine = acquireLock(path);
    writeFileSync(path, `${process.ppid}\n`);
    if (mine.ok) mine.release();
    expect(readFileSync(path, 'utf8').trim()).toBe(String(process.ppid));
  });

  it('two starters taking over one stale lock at the same moment: exactly one wins', () => {
    dir = mkdtempSync(join(tmpdir(), 'aw-lock-'));
    const path = join(dir, 'relay.lock');
    writeFileSync(path, `${deadPid()}\n`);
    let second: ReturnType<typeof acquireLock> | undefined;
    // The second starter (another live PID) arrives while the first is in the middle of its takeover.
    const first = acquireLock(path, process.pid, {
      onTakeover: () => {
        second ??= acquireLock(path, process.ppid);
      },
    });
    expect(first.ok).toBe(true);
    expect(second?.ok).toBe(false);
    expect(readFileSync(path, 'utf8').trim()).toBe(String(process.pid));
    expect(acquireLock(path, process.ppid)).toEqual({ ok: false, pid: process.pid });
    // No guard or temp file is left behind.
    expect(readdirSync(dir)).toEqual(['relay.lock']);
  });

  it('a guard left by a starter that died mid-takeover does not block the next start', () => {
    dir = mkdtempSync(join(tmpdir(), 'aw-lock-'));
    const path = join(dir, 'relay.lock');
    writeFileSync(path, `${deadPid()}\n`);
    writeFileSync(`${path}.takeover`, `${deadPid()}\n`);
    expect(acquireLock(path).ok).toBe(true);
    expect(readdirSync(dir)).toEqual(['relay.lock']);
  });
});

// stageChecked verifies the file it OPENED, not the name it was given: a name whose folder leads out
// of the roots by the time it is opened is refused, even though the caller's look at the name (the
// policy's realpath) said "inside" a moment earlier.
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stageChecked, sweepStaged, whereOpened } from '../../src/media/stage.js';
import { tempDir } from '../helpers/tmp.js';

const base = realpathSync(tempDir('aw-stage-'));
const root = join(base, 'work');
const outside = join(base, 'outside');
mkdirSync(join(root, 'd'), { recursive: true });
mkdirSync(join(outside, 'd'), { recursive: true });
writeFileSync(join(root, 'd', 'f.png'), 'INSIDE');
writeFileSync(join(outside, 'd', 'f.png'), 'SECRET');
writeFileSync(join(outside, 'secret'), 'SECRET');
// What a swap after the name was checked leaves behind: a folder and a file that now lead outside.
symlinkSync(join(outside, 'd'), join(root, 'swapped'));
symlinkSync(join(outside, 'secret'), join(root, 'file-link.png'));
execFileSync('mkfifo', [join(root, 'pipe')]);

let n = 0;
const stage = (path: string, extra: { maxBytes?: number; dir?: string } = {}) =>
  stageChecked({
    path,
    roots: [root],
    maxBytes: extra.maxBytes ?? 1024,
    dir: extra.dir ?? join(base, `staged-${++n}`),
    extension: 'png',
  });

describe('stageChecked', () => {
  it('copies a file inside the root into the private folder, 0600 in 0700', async () => {
    const dir = join(base, 'staged-ok');
    const r = await stage(join(root, 'd', 'f.png'), { dir });
    expect(r).toMatchObject({ ok: true, sizeBytes: 6, source: join(root, 'd', 'f.png') });
    if (!r.ok) return;
    expect(readFileSync(r.path, 'utf8')).toBe('INSIDE');
    expect(r.path.startsWith(`${dir}/`)).toBe(true);
    expect(statSync(r.path).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('refuses a name whose folder now leads outside, and stages nothing', async () => {
    const dir = join(base, 'staged-folder');
    const r = await stage(join(root, 'swapped', 'f.png'), { dir });
    expect(r).toMatchObject({ ok: false, code: 'outside_roots' });
    expect(existsSync(dir) ? readdirSync(dir) : []).toEqual([]);
  });

  it('refuses a name whose last part is now a symlink', async () => {
    const r = await stage(join(root, 'file-link.png'));
    expect(r).toMatchObject({
      ok: false,
      code: 'not_found',
      reason: 'the file changed while it was checked',
    });
  });

  it('refuses a file with a second name, since a hard link inside can be a file outside', async () => {
    linkSync(join(outside, 'secret'), join(root, 'hard.png'));
    const dir = join(base, 'staged-hard');
    const r = await stage(join(root, 'hard.png'), { dir });
    expect(r).toMatchObject({ ok: false, code: 'outside_roots' });
    if (!r.ok) expect(r.reason).toContain('hard links');
    expect(existsSync(dir) ? readdirSync(dir) : []).toEqual([]);
  });

  it('refuses when the staging folder has no room left, and stages nothing', async () => {
    const dir = join(base, 'staged-full');
    const r = await stageChecked({
      path: join(root, 'd', 'f.png'),
      roots: [root],
      maxBytes: 1024,
      dir,
      extension: 'png',
      room: 5,
    });
    expect(r).toMatchObject({ ok: false, code: 'staging_full' });
    expect(existsSync(dir) ? readdirSync(dir) : []).toEqual([]);
  });

  it('refuses a FIFO without waiting for a writer', async () => {
    expect(await stage(join(root, 'pipe'))).toMatchObject({ ok: false, code: 'not_a_file' });
  });

  it('refuses a folder and a file over the limit', async () => {
    expect(await stage(join(root, 'd'))).toMatchObject({ ok: false, code: 'not_a_file' });
    expect(await stage(join(root, 'd', 'f.png'), { maxBytes: 5 })).toMatchObject({
      ok: false,
      code: 'too_large',
    });
  });

  it('makes a staging folder that already exists private', async () => {
    const dir = join(base, 'staged-loose');
    mkdirSync(dir, { mode: 0o755 });
    chmodSync(dir, 0o755);
    expect((await stage(join(root, 'd', 'f.png'), { dir })).ok).toBe(true);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('says so, in words, when the copy cannot be written', async () => {
    const notADir = join(base, 'a-file');
    writeFileSync(notADir, 'x');
    const r = await stage(join(root, 'd', 'f.png'), { dir: join(notADir, 'staged') });
    expect(r).toMatchObject({ ok: false, code: 'stage_failed' });
    if (!r.ok) expect(r.reason).toMatch(/^could not copy it for sending \(E[A-Z]+\)$/);
  });
});

describe('whereOpened', () => {
  // The kernel's answer (/proc/self/fd) and the portable one (the name's real path, accepted only if
  // it is the very file opened) must agree: after a swap, neither names the new target.
  it.each([true, false])(
    'names the file opened, not what the name leads to after a swap (proc: %s)',
    async (useProc) => {
      const dir = join(base, `where-${useProc}`);
      mkdirSync(join(dir, 'd'), { recursive: true });
      writeFileSync(join(dir, 'd', 'f.png'), 'INSIDE');
      const handle = await open(join(dir, 'd', 'f.png'), 'r');
      try {
        const st = await handle.stat();
        expect(await whereOpened(handle, join(dir, 'd', 'f.png'), st, useProc)).toBe(join(dir, 'd', 'f.png'));
        renameSync(join(dir, 'd'), join(dir, 'moved'));
        symlinkSync(join(outside, 'd'), join(dir, 'd'));
        const after = await whereOpened(handle, join(dir, 'd', 'f.png'), st, useProc);
        // /proc follows the file to where it moved; the portable check refuses to guess.
        expect(after).toBe(useProc ? join(dir, 'moved', 'f.png') : undefined);
      } finally {
        await handle.close();
      }
    },
  );
});

describe('sweepStaged', () => {
  it('removes old copies no unsent reply names; keeps named and young ones', async () => {
    const dir = join(base, 'sweep');
    mkdirSync(dir);
    const old = Date.now() / 1000 - 7200;
    for (const name of ['kept', 'old', 'young']) writeFileSync(join(dir, name), name);
    utimesSync(join(dir, 'kept'), old, old);
    utimesSync(join(dir, 'old'), old, old);
    const removed = await sweepStaged(dir, new Set([join(dir, 'kept')]), {
      now: Date.now(),
      graceMs: 3_600_000,
    });
    expect(removed).toBe(1);
    expect(readdirSync(dir).sort()).toEqual(['kept', 'young']);
  });

  it('is a no-op when nothing was ever staged', async () => {
    expect(await sweepStaged(join(base, 'never'), new Set(), { now: Date.now(), graceMs: 0 })).toBe(0);
  });
});

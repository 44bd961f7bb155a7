// agentwire's own compile cache (src/cli/own-compile-cache.ts): when each command keeps V8's
// compiled code, in which folder, and that a second start of the built bin reads it back.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ownCompileCacheDir, ownCompileCachePlan } from '../../src/cli/own-compile-cache.js';
import { compileCacheDir } from '../../src/runner/compile-cache.js';
import { tempDir } from '../helpers/tmp.js';

const BIN = join(process.cwd(), 'dist/cli/bin.js');
// The program's largest chunk in the bundle the bin loads (scripts/bundle-cli.mjs): ours, with
// commander and the other libraries every command uses.
const MAIN_CHUNK = /dist\/bundle\/main-[\w-]+\.js/;

describe('where agentwire keeps its own compiled code', () => {
  const home = '/srv/aw';
  it.each([
    ['a state folder that exists', { AGENTWIRE_HOME: home }, true, '/srv/aw/cache/agentwire-compile'],
    ['none yet: a first command does not make one', { AGENTWIRE_HOME: home }, false, undefined],
    [
      'NODE_COMPILE_CACHE set: Node already has one',
      { AGENTWIRE_HOME: home, NODE_COMPILE_CACHE: '/c' },
      true,
      undefined,
    ],
    [
      'NODE_DISABLE_COMPILE_CACHE: turned off',
      { AGENTWIRE_HOME: home, NODE_DISABLE_COMPILE_CACHE: '1' },
      true,
      undefined,
    ],
    [
      'an empty NODE_COMPILE_CACHE is not set',
      { AGENTWIRE_HOME: home, NODE_COMPILE_CACHE: '' },
      true,
      '/srv/aw/cache/agentwire-compile',
    ],
  ])('%s', (_name, env, exists, want) => {
    expect(ownCompileCachePlan(env, () => exists)).toBe(want);
  });

  it("is never the folder the agents' runs write to", () => {
    expect(ownCompileCacheDir(home)).not.toBe(compileCacheDir(home));
    expect(ownCompileCacheDir(home).startsWith(`${compileCacheDir(home)}/`)).toBe(false);
  });
});

describe('the built bin', () => {
  // The test run's own NODE_COMPILE_CACHE (test/setup/compile-cache.ts) is left out, as a user's
  // shell has none.
  const run = (home: string, extra: Record<string, string> = {}) =>
    spawnSync(process.execPath, [BIN, '--version'], {
      env: { PATH: process.env.PATH ?? '', HOME: home, AGENTWIRE_HOME: home, ...extra },
      encoding: 'utf8',
      timeout: 30_000,
    });

  it('fills a private folder in the state folder, and the next start reads it back', () => {
    const home = tempDir('aw-own-cache-');
    expect(run(home).status).toBe(0);
    const dir = ownCompileCacheDir(home);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(home, 'cache')).mode & 0o777).toBe(0o700);
    // One entry per file the start loaded: the bundle's chunks, and the bin's own few modules.
    const files = readdirSync(dir, { recursive: true });
    expect(files.length).toBeGreaterThan(10);
    const again = run(home, { NODE_DEBUG_NATIVE: 'COMPILE_CACHE' });
    expect(again.status).toBe(0);
    expect(again.stdout).toMatch(/^\d+\.\d+\.\d+/);
    expect(again.stderr).toMatch(
      new RegExp(`V8 code cache for ESM file://\\S+${MAIN_CHUNK.source} was accepted`),
    );
  });

  // A damaged cache is read, refused and written again, never run: Node checks each entry's header
  // and the hash of its code before V8 sees it.
  it.each([
    [
      'each file overwritten with text',
      (_b: Buffer) => Buffer.from('not V8 code\n'),
      /reading header failed/,
    ],
    [
      'one byte of code flipped in each, behind a valid header',
      (b: Buffer) => {
        b[b.length - 1]! ^= 0xff;
        return b;
      },
      /cache hash mismatch/,
    ],
  ])('starts as usual from a damaged cache (%s)', (_name, damage, refused) => {
    const home = tempDir('aw-own-cache-');
    expect(run(home).status).toBe(0);
    const dir = ownCompileCacheDir(home);
    const files = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((f) => f.isFile());
    expect(files.length).toBeGreaterThan(10);
    for (const f of files) {
      const path = join(f.parentPath, f.name);
      writeFileSync(path, damage(readFileSync(path)));
    }
    const r = run(home, { NODE_DEBUG_NATIVE: 'COMPILE_CACHE' });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    const main = r.stderr.split('\n').filter((l) => MAIN_CHUNK.test(l));
    expect(main.length).toBeGreaterThan(0);
    expect(main.join('\n')).toMatch(refused);
    expect(main.join('\n')).not.toMatch(/was accepted/);
  });

  it('makes nothing where there is no state folder yet, or the cache is turned off', () => {
    const parent = tempDir('aw-own-cache-');
    const missing = join(parent, 'not-yet');
    expect(run(missing).status).toBe(0);
    expect(existsSync(missing)).toBe(false);
    const off = join(parent, 'off');
    mkdirSync(off);
    expect(run(off, { NODE_DISABLE_COMPILE_CACHE: '1' }).status).toBe(0);
    expect(existsSync(join(off, 'cache'))).toBe(false);
  });

  it('still answers where the folder cannot be made', () => {
    const home = tempDir('aw-own-cache-');
    // A file where the folder goes: refused even to root, as a read-only state folder refuses a user.
    writeFileSync(join(home, 'cache'), '');
    const r = run(home);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
  });
});

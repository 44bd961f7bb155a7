// scripts/build-stamp.mjs, which lets the test commands skip a build of unchanged sources: it must
// say "build" for every change a developer makes (an edit, a new file, a removed one, a tsconfig)
// and for a missing dist/, and "built" only for the sources the stamp was taken from. Run on a
// copy of the script in a small temp tree, so the repository's own dist/ is not touched.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp.js';

const script = new URL('../../scripts/build-stamp.mjs', import.meta.url).pathname;
const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  files: string[];
  scripts: Record<string, string>;
};

function tree(): { root: string; upToDate(): boolean; stamp(): void } {
  const root = tempDir('aw-build-stamp-');
  mkdirSync(join(root, 'scripts'));
  mkdirSync(join(root, 'src', 'core'), { recursive: true });
  mkdirSync(join(root, 'dist', 'cli'), { recursive: true });
  copyFileSync(script, join(root, 'scripts', 'build-stamp.mjs'));
  writeFileSync(join(root, 'src', 'core', 'a.ts'), 'export const a = 1;\n');
  writeFileSync(join(root, 'tsconfig.json'), '{}\n');
  writeFileSync(join(root, 'package.json'), '{}\n');
  writeFileSync(join(root, 'dist', 'cli', 'bin.js'), '');
  const copy = join(root, 'scripts', 'build-stamp.mjs');
  return {
    root,
    upToDate: () => spawnSync(process.execPath, [copy], { encoding: 'utf8' }).status === 0,
    // What scripts/build.mjs writes once tsc succeeded.
    stamp: () => {
      const r = spawnSync(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `import { sourceHash, STAMP } from ${JSON.stringify(copy)}; (await import('node:fs')).writeFileSync(STAMP, sourceHash() + '\\n');`,
        ],
        { encoding: 'utf8' },
      );
      expect(r.status, r.stderr).toBe(0);
    },
  };
}

describe('build-stamp: whether dist/ was built from the sources as they are', () => {
  it('no stamp: build; stamped: built', () => {
    const t = tree();
    expect(t.upToDate()).toBe(false);
    t.stamp();
    expect(t.upToDate()).toBe(true);
  });

  it.each([
    [
      'a source edited',
      (r: string) => writeFileSync(join(r, 'src', 'core', 'a.ts'), 'export const a = 2;\n'),
    ],
    ['a source added', (r: string) => writeFileSync(join(r, 'src', 'core', 'b.ts'), 'export {};\n')],
    ['a source removed', (r: string) => rmSync(join(r, 'src', 'core', 'a.ts'))],
    [
      'a source renamed',
      (r: string) => {
        rmSync(join(r, 'src', 'core', 'a.ts'));
        writeFileSync(join(r, 'src', 'core', 'c.ts'), 'export const a = 1;\n');
      },
    ],
    ['tsconfig.json changed', (r: string) => writeFileSync(join(r, 'tsconfig.json'), '{"x":1}\n')],
    ['dist/ removed', (r: string) => rmSync(join(r, 'dist', 'cli'), { recursive: true })],
  ])('%s: build again', (_name, change) => {
    const t = tree();
    t.stamp();
    change(t.root);
    expect(t.upToDate()).toBe(false);
  });

  it('the test commands build only when it says so, and the package carries neither file', () => {
    for (const name of ['test', 'test:deferred', 'test:postgres', 'test:stress', 'test:clis'])
      expect(pkg.scripts[name]).toContain('(node scripts/build-stamp.mjs || npm run build) && ');
    expect(pkg.scripts.build).toBe('node scripts/build.mjs');
    expect(pkg.files).toEqual(expect.arrayContaining(['!dist/.tsbuildinfo', '!dist/.build-stamp']));
  });
});

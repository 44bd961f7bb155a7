// Whether dist/ was built from the sources as they are now, so the test commands build only when
// something changed (each of them used to run the whole `tsc` again: five times in CI, after the
// build `npm ci` had just done). The stamp is a hash of every file the build reads (src/, the
// tsconfigs, package.json, the build scripts), taken before `npm run build` (scripts/build.mjs)
// compiled and written once it succeeded. Run as a command it exits 0 when dist/ matches the
// sources and 1 when it does not (no dist/, no stamp, a file added, removed or changed), so
// `node scripts/build-stamp.mjs || npm run build` builds exactly when needed. Contents, not file
// times: a checkout, a stash or a copy cannot make it skip a build it needs.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('..', import.meta.url));
export const STAMP = join(root, 'dist', '.build-stamp');
const INPUTS = [
  'src',
  'tsconfig.json',
  'tsconfig.build.json',
  'package.json',
  // The bundles carry the dependencies' code: an install that changes them makes them stale.
  'package-lock.json',
  'scripts/build.mjs',
  'scripts/bin-mode.mjs',
  'scripts/bundle-mcp.mjs',
  'scripts/bundle-cli.mjs',
];

function filesUnder(path) {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

/** The hash of the build's inputs as they are now. */
export function sourceHash() {
  const hash = createHash('sha256');
  const all = INPUTS.flatMap((p) => filesUnder(join(root, p))).sort();
  for (const f of all)
    hash
      .update(`${relative(root, f)}\0`)
      .update(readFileSync(f))
      .update('\0');
  return hash.digest('hex');
}

/** True when dist/ holds a build of the sources as they are now. */
export function upToDate() {
  const built = existsSync(STAMP) ? readFileSync(STAMP, 'utf8').trim() : '';
  return built === sourceHash() && existsSync(join(root, 'dist', 'cli', 'bin.js'));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (!upToDate()) process.exit(1);
  console.log('dist/ is up to date with src/: no build needed');
}

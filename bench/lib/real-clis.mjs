// Where the real agent CLIs can run for a bench: the pinned version installed (`npm run test:clis`
// installs them into AGENTWIRE_CLIS_DIR, default ~/.cache/agentwire-clis) and a loopback-only
// network namespace (test/clis/netns.sh), so a real CLI can reach nothing but 127.0.0.1.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PINS } from '../../test/clis/install/pins.mjs';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');

export const clisDir = () => process.env.AGENTWIRE_CLIS_DIR ?? join(homedir(), '.cache', 'agentwire-clis');

/** Why `cli` (one of PINS) is not usable from `dir`, or undefined when its pinned version is there. */
export function notInstalled(cli, dir = clisDir()) {
  const pin = PINS.find((p) => p.cli === cli);
  if (!pin) return `${cli} is not one of the pinned CLIs`;
  const manifest = join(dir, cli, 'node_modules', pin.pkg, 'package.json');
  const have = existsSync(manifest) ? JSON.parse(readFileSync(manifest, 'utf8')).version : 'none';
  if (have !== pin.version || !existsSync(join(dir, 'bin', cli)))
    return `${pin.pkg}@${pin.version} is not installed in ${dir} (found ${have}); \`npm run test:clis\` installs it`;
  return undefined;
}

/** Why no loopback-only namespace can be made here, or undefined (also when already inside one). */
export function noNamespace() {
  if (process.env.AGENTWIRE_CLIS_NETNS === '1') return undefined;
  const check = spawnSync('sh', [join(ROOT, 'test/clis/netns.sh'), '--check'], { encoding: 'utf8' });
  if (check.error) return `cannot run test/clis/netns.sh: ${check.error.message}`;
  if (check.status !== 0)
    return (check.stderr.trim().split('\n')[0] ?? 'netns.sh --check failed').replace(/^test:clis: /, '');
  return undefined;
}

/** argv prefixed so that it runs inside the namespace (as is, when already inside one). */
export const inNamespace = (argv) =>
  process.env.AGENTWIRE_CLIS_NETNS === '1' ? argv : ['sh', join(ROOT, 'test/clis/netns.sh'), ...argv];

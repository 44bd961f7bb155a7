// `agentwire mcp` from dist/ writes Node's compile cache as soon as it has loaded, not at exit: the
// agent CLI ends the helper with its own process, often by a signal, and a Node process killed by
// a signal never writes its cache, so a helper that waited for exit would never fill it and every
// start would compile the MCP SDK again (runner/compile-cache.ts).
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp.js';

const BIN = join(process.cwd(), 'dist/cli/bin.js');

/** The largest file under `dir`, any depth (Node keeps one folder per Node version), in bytes. */
function largest(dir: string): number {
  if (!existsSync(dir)) return 0;
  const sizes = readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => statSync(join(e.parentPath, e.name)).size);
  return Math.max(0, ...sizes);
}

/**
 * The compiled MCP SDK, zod and ajv: the helper's bundle (dist/mcp-bundle.js, 0.7 MB of source)
 * compiles to about 350 KB of cache; bin.js and the few small modules before it to 1-2 KB each.
 */
const BUNDLE_CACHED = 100_000;

describe('agentwire mcp and the compile cache', () => {
  it('fills NODE_COMPILE_CACHE while it runs, so a helper killed by a signal leaves it written', async () => {
    expect(existsSync(BIN), 'build first: npm run build').toBe(true);
    const cache = join(tempDir('aw-mcp-cc-'), 'node-compile');
    const child = spawn(process.execPath, [BIN, 'mcp'], {
      env: { PATH: process.env.PATH ?? '', NODE_COMPILE_CACHE: cache },
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    const exited = new Promise((r) => child.once('exit', r));
    try {
      // Its input stays open: it is serving, as under a live agent process.
      const deadline = Date.now() + 20_000;
      // The cache is written file by file: wait for the bundle's, not only the first small one.
      while (largest(cache) <= BUNDLE_CACHED && Date.now() < deadline && child.exitCode === null)
        await new Promise((r) => setTimeout(r, 50));
      expect(child.exitCode, 'still serving').toBeNull();
      expect(largest(cache)).toBeGreaterThan(BUNDLE_CACHED);
    } finally {
      child.kill('SIGKILL');
      await exited;
    }
  });
});

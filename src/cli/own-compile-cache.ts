// Node's compile cache for agentwire's own start: V8 compiled the program's code again at each start
// of every command (then 860 modules, now the bundle's chunks, scripts/bundle-cli.mjs); the cache
// took about 15 % off that (docs/performance.md) for every command: a relay that restarts,
// `status`, `send`, `logs`. Imported by bin.ts before the program, so it may reach nothing that
// loads the store.
//
// The folder is agentwire's alone, apart from the one the agents' runs share
// (`<state>/cache/node-compile`, runner/compile-cache.ts): compiled code in a cache is run as it
// is found, so a folder an agent's CLI writes to must never feed the relay's own code.
import { existsSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { join } from 'node:path';
import { resolvePaths } from '../config/paths.js';
import { makeCompileCacheDir } from '../runner/compile-cache.js';

/** `<home>/cache/agentwire-compile`. */
export function ownCompileCacheDir(home: string): string {
  return join(home, 'cache', 'agentwire-compile');
}

/**
 * Pure: where this process keeps its compiled code, or undefined for none. None where the
 * environment already decides (NODE_COMPILE_CACHE: Node enabled it at start, as for the
 * `agentwire mcp` helper the relay starts; NODE_DISABLE_COMPILE_CACHE: the user turned it off), and
 * none before the state folder exists: a first `agentwire --help` does not create it.
 */
export function ownCompileCachePlan(env: NodeJS.ProcessEnv, homeExists: (home: string) => boolean) {
  if (env.NODE_COMPILE_CACHE || env.NODE_DISABLE_COMPILE_CACHE) return undefined;
  const { home } = resolvePaths(env);
  return homeExists(home) ? ownCompileCacheDir(home) : undefined;
}

/**
 * Turns the cache on for the rest of this process's loading. Never fails a command: the cache is
 * an optimisation, so a folder that cannot be made (a read-only state folder) means no cache.
 */
export function enableOwnCompileCache(env: NodeJS.ProcessEnv): void {
  const dir = ownCompileCachePlan(env, existsSync);
  if (!dir || !nodeModule.enableCompileCache) return;
  try {
    makeCompileCacheDir(dir);
  } catch {
    return;
  }
  nodeModule.enableCompileCache(dir);
}

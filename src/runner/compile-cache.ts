// Node's on-disk compile cache for the Node programs a run starts: gemini and pi (their bundles are
// tens of MB of JavaScript that V8 compiles again at every start) and agentwire's own `agentwire mcp`
// helper, started by the CLI once per process (per thread with codex). Measured on this 2-core
// machine (docs/performance.md), CPU of `gemini --version` 1.80 → 1.33 s, of `pi --version`
// 0.82 → 0.71 s, of a helper start 0.24 → 0.20 s. claude and opencode are native executables and
// codex's launcher is a few lines in front of a native binary: the variable does nothing for them.
// The cache holds V8 code keyed by each file's contents and the Node version, so it cannot change
// what a program does; it lives in agentwire's state folder, private, never in the shared temp
// folder, where another local user could plant code in it.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

export const COMPILE_CACHE_ENV = 'NODE_COMPILE_CACHE';

/** `<home>/cache/node-compile`: the folder every run of this state folder shares. */
export function compileCacheDir(home: string): string {
  return join(home, 'cache', 'node-compile');
}

/**
 * Pure: the variable that gives a run's Node programs the cache, or nothing where the relay's own
 * environment turns Node's compile cache off (NODE_DISABLE_COMPILE_CACHE, as Node itself reads it).
 * A config `env` that names NODE_COMPILE_CACHE is laid over this and wins.
 */
export function compileCacheEnv(dir: string, from: NodeJS.ProcessEnv): Record<string, string> {
  if (from.NODE_DISABLE_COMPILE_CACHE) return {};
  return { [COMPILE_CACHE_ENV]: dir };
}

/** Creates the folder private (Node would create it world-readable). Errors are the caller's. */
export function makeCompileCacheDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
}

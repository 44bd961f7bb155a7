#!/usr/bin/env node
// The `agentwire` bin. It checks the Node version, then loads the real program (main.ts).
// This is the one place the static-import rule is broken on purpose: a static import of main.js
// would load the store, and on a Node older than 22.13 importing `node:sqlite` throws
// ERR_UNKNOWN_BUILTIN_MODULE with a stack trace before any check could run, even for --help and
// `doctor`. So this file imports nothing that reaches the store, and main.js only once the Node
// version is known to be good (and once the compile cache is on, which a static import would
// precede). Keep it tiny and in plain syntax an old Node still parses.
import { existsSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { nodeVersionProblem } from '../core/node-version.js';
import { enableOwnCompileCache } from './own-compile-cache.js';

const problem = nodeVersionProblem(process.version, process.execPath);
if (problem) {
  process.stderr.write(`${problem}\n`);
  process.exitCode = 1;
} else if (process.argv[2] === 'mcp' && process.argv.length === 3) {
  // Started by the agent CLI at the top of every run: only the MCP server, not every command
  // (about a second less on a busy machine; docs/tools.md), and from one bundled file.
  const { serveMcp } = await loadMcp();
  // With NODE_COMPILE_CACHE set (the relay sets it; runner/compile-cache.ts), the code compiled so
  // far is written now rather than at exit: the CLI ends this helper with its own process, often
  // by a signal, and a process killed by a signal never writes its cache.
  nodeModule.flushCompileCache?.();
  await serveMcp(process.env);
} else {
  enableOwnCompileCache(process.env);
  const { runMain } = await loadMain();
  await runMain();
}

/**
 * The MCP server as bundled by the build (scripts/bundle-mcp.mjs): one file to read instead of about
 * 260 modules to resolve and load, half the helper's CPU at each start. A build by tsc alone has no
 * bundle, and then the same code is loaded module by module (but over an earlier full build, tsc
 * alone leaves that build's bundle in place: `npm run build` makes it again).
 */
function loadMcp(): Promise<typeof import('./mcp.js')> {
  return bundleOr('../mcp-bundle.js', () => import('./mcp.js'));
}

/**
 * The program as bundled by the build (scripts/bundle-cli.mjs): a few files to read instead of
 * about 860 modules (more for a relay) to resolve and link, more than half of every command's
 * start. A build by tsc alone has no bundle, and then the same code is loaded module by module.
 */
function loadMain(): Promise<typeof import('./main.js')> {
  return bundleOr('../bundle/cli.js', () => import('./main.js'));
}

/**
 * The bundle at `path` (from this file) where the build made one, else `modules`. Asked of the file,
 * not of a failed import: a bundle that is there but broken (a chunk missing) fails loudly.
 */
async function bundleOr<T>(path: string, modules: () => Promise<T>): Promise<T> {
  const url = new URL(path, import.meta.url);
  return existsSync(url) ? ((await import(url.href)) as T) : modules();
}

// After tsc (scripts/build.mjs): the tools' two programs that run inside every agent process,
// each bundled into one file that the relay names to the CLIs. `agentwire mcp`, the MCP helper
// (one per warm session, one per cold run), into dist/mcp-bundle.js, which src/cli/bin.ts loads:
// unbundled, it resolved and loaded about 260 modules (the MCP SDK, zod, ajv) at every start, 0.3 s
// of CPU before it could answer; bundled, one file (tree-shaken) takes about half that
// (docs/performance.md). And the same tools as a pi extension (src/cli/tool-extension.ts; pi loads
// it in its own process at every start) into dist/tool-extension-bundle.js, which relay-tools.ts
// names where it exists: about 40 ms less of pi's start than zod's modules and ours. Both sit
// directly in dist/, as src/own-files.ts expects of a file there. Never written over tsc's output:
// tsc rebuilds only what changed, and a bundle in a module's place would be read back as its source.
import { build } from 'rolldown';

const dist = (path) => new URL(`../dist/${path}`, import.meta.url).pathname;

for (const [input, file] of [
  ['cli/mcp.js', 'mcp-bundle.js'],
  ['cli/tool-extension.js', 'tool-extension-bundle.js'],
])
  await build({
    input: dist(input),
    platform: 'node',
    logLevel: 'warn',
    output: { file: dist(file), format: 'esm', codeSplitting: false },
  });

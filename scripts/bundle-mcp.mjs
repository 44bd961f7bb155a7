// After tsc (scripts/build.mjs): `agentwire mcp`, the MCP helper every agent process starts (one per
// warm session, one per cold run), bundled into one file, dist/mcp-bundle.js, which src/cli/bin.ts
// loads. Unbundled, the helper resolved and loaded about 260 modules (the MCP SDK, zod, ajv) at every
// start, 0.3 s of CPU before it could answer; bundled, one file (tree-shaken) takes about half that
// (docs/performance.md). It sits directly in dist/, as src/version.ts does, so that module's
// `../package.json` still finds the package's own.
import { build } from 'rolldown';

await build({
  input: new URL('../dist/cli/mcp.js', import.meta.url).pathname,
  platform: 'node',
  logLevel: 'warn',
  output: {
    file: new URL('../dist/mcp-bundle.js', import.meta.url).pathname,
    format: 'esm',
    codeSplitting: false,
  },
});

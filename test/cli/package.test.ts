// What `npm pack` would put in the package, from the built dist/: the codex protocol is types only
// (src/drivers/codex-protocol.d.ts), so nothing of it ships, where its generated tree used to add
// 936 empty modules and source maps (and a dist/ built before the change keeps them: the package
// leaves them out).
import { execFileSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';

const root = new URL('../..', import.meta.url).pathname;

function packed(): string[] {
  // --ignore-scripts: the test reads the dist/ that `npm test` built; it must not rebuild it.
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return (JSON.parse(out) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path);
}

describe('the npm package', () => {
  // One `npm pack` (about 5 s) for every check of what it holds.
  let files: string[] = [];
  beforeAll(() => {
    files = packed();
  }, 60_000);

  it('carries nothing of the codex protocol types, and still the built drivers', () => {
    expect(files.filter((f) => f.includes('codex-protocol'))).toEqual([]);
    expect(files).toContain('dist/drivers/codex.js');
  });

  it("carries the MCP helper's bundle, which `agentwire mcp` runs, and pi's extension's (scripts/bundle-mcp.mjs)", () => {
    expect(files).toContain('dist/mcp-bundle.js');
    expect(files).toContain('dist/tool-extension-bundle.js');
  });

  it("carries the program's bundle, which the bin runs, and not the tests' list of its modules", () => {
    expect(files).toContain('dist/bundle/cli.js');
    expect(files.filter((f) => f.startsWith('dist/bundle/')).length).toBeGreaterThan(10);
    expect(files).not.toContain('dist/bundle/modules.json');
  });
});

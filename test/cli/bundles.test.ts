// The built bin runs the bundles the build made, not the modules one by one: `agentwire mcp` its
// own (scripts/bundle-mcp.mjs; half the helper's CPU at every agent start), every other command the
// program's (scripts/bundle-cli.mjs; more than half of a command's start). The protocol and the
// commands themselves are tested through the same bin elsewhere (./mcp.test.ts, test/e2e/). Without
// the bundles (a build by tsc alone) the bin loads the modules; with a broken one it fails.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp.js';

const BIN = join(process.cwd(), 'dist/cli/bin.js');
const BUNDLE = join(process.cwd(), 'dist/mcp-bundle.js');
const PROGRAM = join(process.cwd(), 'dist/bundle/cli.js');

/** Every module URL the helper loads until its input ends (it exits then), from a load hook. */
async function loadedBy(args: string[]): Promise<string[]> {
  const hook = join(tempDir('aw-mcp-bundle-'), 'hook.mjs');
  writeFileSync(
    hook,
    `import { registerHooks } from 'node:module';
import { writeSync } from 'node:fs';
registerHooks({ load(url, ctx, next) { writeSync(2, 'LOADED ' + url + '\\n'); return next(url, ctx); } });
`,
  );
  const child = spawn(process.execPath, ['--import', pathToFileURL(hook).href, ...args], {
    env: { PATH: process.env.PATH ?? '' },
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (d) => {
    err += d;
  });
  child.stdin.end();
  const code = await new Promise((r) => child.once('exit', r));
  expect(code, err).toBe(0);
  return err
    .split('\n')
    .filter((l) => l.startsWith('LOADED '))
    .map((l) => l.slice('LOADED '.length));
}

describe('agentwire mcp from its bundle', () => {
  it('loads the bundle and none of the MCP SDK, zod or ajv modules of node_modules', async () => {
    expect(existsSync(BIN), 'build first: npm run build').toBe(true);
    expect(existsSync(BUNDLE), 'npm run build writes dist/mcp-bundle.js').toBe(true);
    const loaded = await loadedBy([BIN, 'mcp']);
    expect(loaded).toContain(pathToFileURL(BUNDLE).href);
    expect(loaded.filter((u) => u.includes('/node_modules/'))).toEqual([]);
    expect(loaded.filter((u) => u.startsWith('file:')).length).toBeLessThan(15);
  });
});

describe('agentwire from the program bundle', () => {
  it.each([['--version'], ['--help']])(
    '`agentwire %s` loads its chunks and no module of node_modules or of dist/ beside the bin',
    async (...args) => {
      expect(existsSync(PROGRAM), 'npm run build writes dist/bundle/cli.js').toBe(true);
      const loaded = await loadedBy([BIN, ...args]);
      expect(loaded).toContain(pathToFileURL(PROGRAM).href);
      expect(loaded.filter((u) => u.includes('/node_modules/'))).toEqual([]);
      // The bin and the few modules it loads first (the Node version check, the compile cache).
      const unbundled = loaded.filter((u) => u.includes('/dist/') && !u.includes('/dist/bundle/'));
      expect(unbundled.length, unbundled.join('\n')).toBeLessThan(10);
      expect(unbundled.filter((u) => u.endsWith('/dist/cli/main.js'))).toEqual([]);
    },
  );
});

describe('a build by tsc alone (no bundles)', () => {
  /** The built package without its bundles, in a folder of its own (node_modules linked). */
  function unbundled(): string {
    const pkg = tempDir('aw-unbundled-');
    const bundles = new Set(['bundle', 'mcp-bundle.js', 'tool-extension-bundle.js']);
    cpSync(join(process.cwd(), 'dist'), join(pkg, 'dist'), {
      recursive: true,
      filter: (src) => !bundles.has(relative(join(process.cwd(), 'dist'), src)),
    });
    cpSync(join(process.cwd(), 'package.json'), join(pkg, 'package.json'));
    symlinkSync(join(process.cwd(), 'node_modules'), join(pkg, 'node_modules'));
    return pkg;
  }

  it('runs the program and `agentwire mcp` from their modules', async () => {
    const pkg = unbundled();
    const bin = join(pkg, 'dist/cli/bin.js');
    expect(existsSync(join(pkg, 'dist/bundle'))).toBe(false);
    const program = await loadedBy([bin, '--version']);
    expect(program).toContain(pathToFileURL(join(pkg, 'dist/cli/main.js')).href);
    expect(program.filter((u) => u.includes('/node_modules/commander/')).length).toBeGreaterThan(0);
    const mcp = await loadedBy([bin, 'mcp']);
    expect(mcp).toContain(pathToFileURL(join(pkg, 'dist/cli/mcp.js')).href);
    expect(mcp.filter((u) => u.includes('/node_modules/@modelcontextprotocol/')).length).toBeGreaterThan(0);
  });

  it("names tsc's module of the tools' extension to a CLI without MCP", async () => {
    const pkg = unbundled();
    const built = pathToFileURL(join(pkg, 'dist/relay-tools.js')).href;
    const { agentwireEntry } = (await import(built)) as typeof import('../../src/relay-tools.js');
    expect(agentwireEntry()?.toolExtension).toBe(join(pkg, 'dist/cli/tool-extension.js'));
  });

  it('a bundle that is there but broken fails the command, rather than quietly loading the modules', () => {
    const pkg = unbundled();
    mkdirSync(join(pkg, 'dist/bundle'));
    writeFileSync(join(pkg, 'dist/bundle/cli.js'), "import './chunk-gone.js';\n");
    const r = spawnSync(process.execPath, [join(pkg, 'dist/cli/bin.js'), '--version'], {
      env: { PATH: process.env.PATH ?? '' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('chunk-gone.js');
  });
});

// `npm run build`: tsc, then the bin's mode, the MCP helper's bundle (scripts/bundle-mcp.mjs) and
// the program's (scripts/bundle-cli.mjs),
// then the stamp that lets the test commands skip a build of unchanged sources
// (scripts/build-stamp.mjs). The hash is taken before compiling, so a file
// changed while tsc runs leaves a stamp that no longer matches, and the next test command builds.
// tsc's incremental state (dist/.tsbuildinfo) stays inside dist/: removing dist/ removes it too, so
// tsc never takes a deleted output for up to date; the package leaves both files out (package.json).
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { root, STAMP, sourceHash } from './build-stamp.mjs';

const hash = sourceHash();
rmSync(STAMP, { force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const run = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
if (run.status !== 0) process.exit(run.status ?? 1);
await import('./bin-mode.mjs');
await import('./bundle-mcp.mjs');
await import('./bundle-cli.mjs');
writeFileSync(STAMP, `${hash}\n`);

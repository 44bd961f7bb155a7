// First step of the test commands: on a Node older than package.json's `engines.node` (the same
// 22.13 as src/core/node-version.ts, kept in step by test/cli/check-node.test.ts), say so in one
// line and stop. Without it vitest itself dies on an old Node with "(0 test)" in every file and a
// `Map.groupBy is not a function` that never names the Node version. Plain JavaScript with no
// imports beyond node:fs, so that it runs on any Node old enough to need it.
import { readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const need = /^>=\s*(\d+)\.(\d+)(?:\.(\d+))?$/.exec(pkg.engines?.node ?? '');
if (!need) {
  console.error(`check-node: package.json's engines.node (${pkg.engines?.node}) is not ">=X.Y"`);
  process.exit(2);
}
const want = need.slice(1).map((n) => Number(n ?? 0));
const have = process.versions.node.split('.').map(Number);
let older = false;
for (let i = 0; i < 3; i++) {
  if ((have[i] ?? 0) !== want[i]) {
    older = (have[i] ?? 0) < want[i];
    break;
  }
}
if (older) {
  console.error(
    `agentwire's tests need Node ${want[0]}.${want[1]} or newer; this is ${process.version} (${process.execPath}): install Node 24 LTS and put it first on PATH.`,
  );
  process.exit(1);
}

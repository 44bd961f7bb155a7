// Preloaded into the relay for an experiment (`BENCH_RELAY_NODE_ARGS="--import ./bench/lib/no-autogroup.mjs"`,
// a path from the repository root): the relay lowers its agents' nice but not their sessions'
// scheduling groups (`/proc/<pid>/autogroup`, src/runner/nice.ts), as it did before 2026-11-29. The
// write is refused as on a kernel without autogroup, so the nice alone is left. Used for the A/B in
// docs/performance.md ("Agents' sessions at nice 10").
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';

const isAutogroup = (file) => typeof file === 'string' && /^\/proc\/\d+\/autogroup$/.test(file);
const refusal = (file) =>
  Object.assign(new Error(`ENOENT: refused by no-autogroup.mjs, ${file}`), { code: 'ENOENT' });

const writeFile = fsp.writeFile;
fsp.writeFile = function (file, ...rest) {
  return isAutogroup(file) ? Promise.reject(refusal(file)) : writeFile.call(this, file, ...rest);
};
const writeFileSync = fs.writeFileSync;
fs.writeFileSync = function (file, ...rest) {
  if (isAutogroup(file)) throw refusal(file);
  return writeFileSync.call(this, file, ...rest);
};
// The relay imports these by name: named imports of a builtin follow the CommonJS object only once
// this is called.
syncBuiltinESMExports();

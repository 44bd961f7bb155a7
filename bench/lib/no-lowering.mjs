// Preloaded into the relay for an experiment (`BENCH_RELAY_NODE_ARGS="--import ./bench/lib/no-lowering.mjs"`,
// a path from the repository root): the relay lowers none of its agents (src/runner/nice.ts): no
// nice, no session group (no-autogroup.mjs), as for cold runs before 2026-11-29. Used for the A/B
// in docs/performance.md ("Agents' sessions at nice 10").

import { syncBuiltinESMExports } from 'node:module';
import os from 'node:os';
import './no-autogroup.mjs';

os.setPriority = () => {
  throw Object.assign(new Error('EACCES: refused by no-lowering.mjs'), { code: 'EACCES' });
};
syncBuiltinESMExports();

// Preloaded into the relay for an experiment (`BENCH_RELAY_NODE_ARGS="--import ./bench/lib/nice-launcher.mjs"`,
// a path from the repository root): the relay's launcher (agents.launcher) is lowered to nice 10
// right after the relay forks it, so every process it starts
// inherits that priority from fork(), before its exec: no window at the relay's priority between the
// start and the pool's own setPriority (src/runner/nice.ts), which comes only once the launcher has
// told the relay the pid. Cold runs and tools started through the launcher are lowered too. Used for
// the A/B in docs/performance.md ("claude ack p99 at 10 × 4 with the launcher").
import { ChildProcess } from 'node:child_process';
import { setPriority } from 'node:os';

const spawn = ChildProcess.prototype.spawn;
ChildProcess.prototype.spawn = function (opts) {
  const r = spawn.call(this, opts);
  if (this.pid !== undefined && (opts?.args ?? []).some((a) => String(a).includes('launcher-process')))
    setPriority(this.pid, 10);
  return r;
};

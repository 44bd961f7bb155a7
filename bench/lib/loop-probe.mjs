// Preloaded into the relay for an experiment (`BENCH_RELAY_NODE_ARGS="--import ./bench/lib/loop-probe.mjs"`,
// a path from the repository root): its event loop's delay (perf_hooks.monitorEventLoopDelay), each
// stall of the loop over 30 ms with the CPU the relay used meanwhile and its voluntary and
// involuntary context switches (little CPU and involuntary switches: the relay was waiting for a
// core; CPU: its own work), how long each child_process spawn held the loop (synchronous in the
// parent: the fork, and on Linux the wait for the child's exec), and each HTTP request's time inside
// the relay (from node's 'request' event to the answer's 'finish'; what the bench's ack adds beyond it
// is the sockets, the loop reaching the request, and the bench's own process). Written every 0.5 s and at exit to
// <tmp>/aw-loop-probe/<pid>.json; bench/lib/loop-probe-report.mjs reads it beside the burst bench's
// output with BENCH_ACK_LOG=1 (each webhook's time sent and time to its 200).
import { ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const dir = join(tmpdir(), 'aw-loop-probe');
mkdirSync(dir, { recursive: true });
const switches = () => {
  const t = readFileSync('/proc/self/status', 'utf8');
  return [
    Number(/\nvoluntary_ctxt_switches:\s+(\d+)/.exec(t)?.[1]),
    Number(/nonvoluntary_ctxt_switches:\s+(\d+)/.exec(t)?.[1]),
  ];
};
const h = monitorEventLoopDelay({ resolution: 5 });
h.enable();
/** [time it returned (epoch ms), ms the spawn call took, program] */
const spawns = [];
const spawn = ChildProcess.prototype.spawn;
ChildProcess.prototype.spawn = function (opts) {
  const t = performance.now();
  try {
    return spawn.call(this, opts);
  } finally {
    spawns.push([
      Date.now(),
      +(performance.now() - t).toFixed(2),
      String(opts?.file ?? '')
        .split('/')
        .pop(),
    ]);
  }
};
/** [request event (epoch ms), ms to the answer's finish, path] */
const requests = [];
const emit = Server.prototype.emit;
Server.prototype.emit = function (event, ...args) {
  const [req, res] = args;
  if (event === 'request') {
    const at = Date.now();
    const t = performance.now();
    res.once('finish', () => requests.push([at, +(performance.now() - t).toFixed(2), String(req.url)]));
  }
  return emit.call(this, event, ...args);
};
/** [start (epoch ms), length ms, relay CPU ms in it, voluntary switches, involuntary switches] */
const stalls = [];
let last = performance.now();
let lastCpu = process.cpuUsage();
let lastSw = switches();
setInterval(() => {
  const now = performance.now();
  const cpu = process.cpuUsage();
  const sw = switches();
  if (now - last > 30) {
    const cpuMs = (cpu.user - lastCpu.user + cpu.system - lastCpu.system) / 1000;
    stalls.push([
      Date.now() - Math.round(now - last),
      Math.round(now - last),
      Math.round(cpuMs),
      sw[0] - lastSw[0],
      sw[1] - lastSw[1],
    ]);
  }
  last = now;
  lastCpu = cpu;
  lastSw = sw;
}, 5).unref();
const ms = (ns) => ns / 1e6;
const dump = () =>
  writeFileSync(
    join(dir, `${process.pid}.json`),
    JSON.stringify({
      p50: ms(h.percentile(50)),
      p99: ms(h.percentile(99)),
      max: ms(h.max),
      spawns,
      stalls,
      requests,
    }),
  );
setInterval(dump, 500).unref();
process.on('exit', dump);

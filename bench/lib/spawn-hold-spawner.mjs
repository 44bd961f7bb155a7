// The spawning side of bench/spawn-hold.bench.mjs's ways (b) and (c): the same code runs as a
// worker_threads Worker in the measured process (b) or as a small launcher process forked from it
// before its heap grows (c). A request {id, file, args} starts the program as the relay starts an
// agent (its own process group, a minimal environment, stdout and stderr piped and drained); it
// answers {id, pid, ms} as soon as the pid is known (ms: how long the spawn call held this thread)
// and {id, exit} when the child is gone. Nothing of the child's output goes back: that copy is a
// cost the real helper would add (docs/performance.md, "Where a spawn holds the loop").
import { spawn } from 'node:child_process';
import { parentPort } from 'node:worker_threads';

const send = parentPort ? (m) => parentPort.postMessage(m) : (m) => process.send(m);

function start({ id, file, args, env }) {
  const t = performance.now();
  let child;
  try {
    child = spawn(file, args, { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    send({ id, error: String(e?.message ?? e) });
    return;
  }
  const ms = performance.now() - t;
  child.stdout.resume();
  child.stderr.resume();
  child.once('error', (e) => send({ id, error: String(e?.message ?? e) }));
  child.once('exit', (code, signal) => send({ id, exit: code ?? signal }));
  if (child.pid !== undefined) send({ id, pid: child.pid, ms });
}

function onMessage(m) {
  if (m?.type === 'spawn') start(m);
  else if (m?.type === 'stop') {
    if (parentPort) parentPort.close();
    else process.disconnect();
  }
}

if (parentPort) parentPort.on('message', onMessage);
else if (process.send) {
  process.on('message', onMessage);
  process.send({ ready: process.pid });
} else {
  process.stderr.write('spawn-hold-spawner: run as a worker thread or with an IPC channel\n');
  process.exitCode = 2;
}

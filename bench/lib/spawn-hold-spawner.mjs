// The spawning side of bench/spawn-hold.bench.mjs's ways (b) and (c): the same code runs as a
// worker_threads Worker in the measured process (b) or as a small launcher process forked from it
// before its heap grows (c). A request {id, file, args} starts the program as the relay starts an
// agent (its own process group, a minimal environment, stdout and stderr piped and drained); it
// answers {id, pid, ms} as soon as the pid is known (ms: how long the spawn call held this thread)
// and {id, exit} when the child is gone and its pipes closed. The child's output goes back only
// when asked (`forward`: {id, out} per chunk), the copy a launcher in the relay would have to make.
import { spawn } from 'node:child_process';
import { parentPort } from 'node:worker_threads';

// A launcher told to stop has let go of its channel; a child's late news is then dropped.
const send = parentPort
  ? (m) => parentPort.postMessage(m)
  : (m) => {
      if (process.connected) process.send(m);
    };

function start({ id, file, args, env, forward }) {
  const t = performance.now();
  let child;
  try {
    child = spawn(file, args, { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    send({ id, error: String(e?.message ?? e) });
    return;
  }
  const ms = performance.now() - t;
  // `forward`: stdout goes back as text, chunk by chunk, as a launcher in the relay would have to.
  if (forward) {
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (out) => send({ id, out }));
  } else child.stdout.resume();
  child.stderr.resume();
  let failed = false;
  child.once('error', (e) => {
    failed = true;
    send({ id, error: String(e?.message ?? e) });
  });
  // 'close': after the exit and after the last of stdout, so no output can follow the exit. A child
  // that could not start closes too (with a negative errno): its error was the answer.
  child.once('close', (code, signal) => {
    if (!failed) send({ id, exit: code ?? signal });
  });
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

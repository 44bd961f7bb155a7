// The launcher: a small process the relay forks once, while the relay is still small, and that
// starts agent processes on its behalf. A fork() copies the page tables of the process that calls
// it, so a spawn from a relay grown to hundreds of MiB holds the relay's event loop for milliseconds
// (docs/performance.md, "Where a spawn holds the loop"); from here it holds only this loop.
//
// Plain Node on purpose: it imports node's own modules and erased types only, so it stays at the
// size of an empty node process, and runs from the sources too (type stripping erases a type
// import; a value import of another .ts file would not resolve there). It runs as compiled JavaScript (dist/) or, from the sources, with
// node's type stripping; keep to syntax that strips (no enums, no parameter properties).
//
// Each child leads its own process group (detached), as spawn.ts starts it, so the relay can kill
// the whole group by pid. When the relay goes (the channel closes, even on SIGKILL), nobody is left
// to read the children's output: the launcher kills their groups and their marked processes (what
// left the group with setsid) and exits.
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import type { Readable } from 'node:stream';
import type { FromLauncher, ToLauncher } from './protocol.js';

interface Run {
  child: ChildProcess;
  mark?: string;
  /** Messages handed to the channel and not yet written: past a bound, the child's pipes pause. */
  pending: number;
  paused: boolean;
}

// Past this many unsent messages for one run its pipes pause, so a child flooding its stdout
// fills the pipe and waits instead of this process's memory (a chunk is up to 64 KiB).
const HIGH = 32;
const LOW = 8;

const runs = new Map<number, Run>();

function send(m: FromLauncher, run?: Run): void {
  if (!process.connected) return;
  if (run) run.pending++;
  process.send?.(m, undefined, {}, () => {
    if (!run) return;
    run.pending--;
    if (run.paused && run.pending <= LOW) {
      run.paused = false;
      for (const r of readsOf(run.child)) r.resume();
    }
  });
  if (run && !run.paused && run.pending >= HIGH) {
    run.paused = true;
    for (const r of readsOf(run.child)) r.pause();
  }
}

/** The pipes read from a child: stdout, stderr and, when asked for, fd 3. */
function readsOf(child: ChildProcess): Readable[] {
  return [child.stdout, child.stderr, fd3Of(child)].filter((r): r is Readable => r !== null);
}

function fd3Of(child: ChildProcess): Readable | null {
  return (child.stdio[3] as Readable | null | undefined) ?? null;
}

function start(m: Extract<ToLauncher, { type: 'spawn' }>): void {
  let child: ChildProcess;
  try {
    child = spawn(m.file, m.args, {
      cwd: m.cwd,
      env: m.env,
      shell: false,
      detached: true,
      stdio: [m.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe', ...(m.fd3 ? ['pipe' as const] : [])],
    });
  } catch (e) {
    // Arguments node refuses outright (a NUL byte in argv or env) throw here and start nothing.
    const err = e as NodeJS.ErrnoException;
    send({ type: 'failed', id: m.id, code: err.code, message: err.message });
    return;
  }
  const id = m.id;
  const run: Run = { child, mark: m.mark, pending: 0, paused: false };
  // A write to a child that exited without reading fails with EPIPE: its exit says the rest.
  child.stdin?.on('error', () => {});
  child.on('error', (e: NodeJS.ErrnoException) => {
    // After a start, 'error' means a kill that failed; only a start's failure is news.
    if (child.pid !== undefined) return;
    runs.delete(id);
    send({ type: 'failed', id, code: e.code, message: e.message });
  });
  if (child.pid === undefined) return;
  runs.set(id, run);
  send({ type: 'spawned', id, pid: child.pid });
  child.stdout?.on('data', (data: Buffer) => send({ type: 'stdout', id, data }, run));
  child.stderr?.on('data', (data: Buffer) => send({ type: 'stderr', id, data }, run));
  const fd3 = fd3Of(child);
  fd3?.on('data', (data: Buffer) => send({ type: 'fd3', id, data }, run));
  let open = fd3 ? 3 : 2;
  let exited = false;
  // Forgotten once the child exited and its pipes closed: then nothing more can come of it.
  const ended = (type: 'stdout_end' | 'stderr_end' | 'fd3_end') => () => {
    send({ type, id });
    if (--open === 0 && exited) runs.delete(id);
  };
  child.stdout?.once('close', ended('stdout_end'));
  child.stderr?.once('close', ended('stderr_end'));
  fd3?.once('close', ended('fd3_end'));
  child.once('exit', (code, signal) => {
    exited = true;
    send({ type: 'exit', id, code, signal });
    if (open === 0) runs.delete(id);
  });
}

/**
 * SIGKILL to every process whose environment carries the run's mark, as run-mark.ts's signalMarked
 * does (a copy: this file imports nothing of ours). Three passes, for a process that forked between
 * the scan and the kill. Without /proc (not Linux) it finds nothing, as there.
 */
function killMarked(mark: string): void {
  const needle = Buffer.from(`AGENTWIRE_RUN=${mark}\0`);
  for (let pass = 0; pass < 3; pass++) {
    let found = 0;
    let entries: string[] = [];
    try {
      entries = readdirSync('/proc');
    } catch {
      return;
    }
    for (const entry of entries) {
      if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
      let env: Buffer;
      try {
        env = readFileSync(`/proc/${entry}/environ`);
      } catch {
        continue; // gone while we looked, or not ours
      }
      const at = env.indexOf(needle);
      if (at < 0 || (at > 0 && env[at - 1] !== 0)) continue;
      found++;
      try {
        process.kill(Number(entry), 'SIGKILL');
      } catch {
        // ESRCH: gone already.
      }
    }
    if (found === 0) return;
  }
}

function onMessage(m: ToLauncher): void {
  switch (m.type) {
    case 'spawn':
      start(m);
      return;
    case 'stdin': {
      const stdin = runs.get(m.id)?.child.stdin;
      if (stdin && !stdin.destroyed) stdin.write(m.data);
      return;
    }
    case 'stdin_end':
      runs.get(m.id)?.child.stdin?.end();
      return;
    case 'release': {
      // Closing the pipes ends them here as anywhere: their `*_end` and the exit still follow.
      const child = runs.get(m.id)?.child;
      child?.stdout?.destroy();
      child?.stderr?.destroy();
      if (child) fd3Of(child)?.destroy();
      child?.stdin?.destroy();
      return;
    }
  }
}

if (!process.send) {
  process.stderr.write('agentwire launcher: start it with an IPC channel (the relay forks it)\n');
  process.exitCode = 2;
} else {
  process.on('message', (m: ToLauncher) => onMessage(m));
  process.once('disconnect', () => {
    for (const { child, mark } of runs.values()) {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // ESRCH: the group is gone already.
      }
      if (mark) killMarked(mark);
    }
    process.exit(0);
  });
  send({ type: 'ready', pid: process.pid });
}

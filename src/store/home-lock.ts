// Only one relay owns the channels of a state folder: two WhatsApp sockets on one account kick each
// other off (status 440), and two Twilio pollers answer twice.
//
// The lock is a unix socket the owner listens on (paths.lock), not a file with a PID in it. Why: a
// PID says nothing once its process is dead. A relay killed with SIGKILL stays a zombie until its
// parent reaps it, which in a container whose first process never reaps orphans is forever, and
// `kill(pid, 0)` calls a zombie alive; a PID can also be reused by an unrelated process after a
// reboot or a wrap-around. A listening socket is released by the kernel the moment its holder dies
// (every descriptor is closed at exit, before the process becomes a zombie), so:
// - connect succeeds  -> some live process holds the lock; its first line names the pid and the
//   state folder (by device and inode, so a bind mount under another path still matches);
// - ECONNREFUSED      -> the socket file is a leftover: nobody listens on it any more;
// - ENOENT            -> no lock at all.
// A lock on an open file (flock) would be the other kernel-released choice, but Node has no flock
// without a native addon, and the socket also tells who holds it.
//
// Taking the lock is bind(), which fails with EADDRINUSE when the path exists: atomic, so two
// starters cannot both create it. Only removing a leftover socket can race (one starter could remove
// the socket another just bound), so that step, probe-again-then-unlink-then-bind, runs under a
// short-lived takeover guard file. The guard is held for milliseconds; one older than GUARD_STALE_MS
// was left by a starter that died mid-takeover and is cleared by age, not by its (maybe zombie) PID.
import { closeSync, mkdirSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { dirname } from 'node:path';

export type LockResult =
  | { ok: true; release: () => Promise<void> }
  | { ok: false; pid: number | undefined; reason: 'held' | 'silent' };

/** What holds the lock, as seen from outside: the one probe doctor, status, login and the relay share. */
export type LockState =
  | { type: 'none' }
  | { type: 'live'; pid: number }
  /** A process listens on the lock but did not say who it is in time (busy, or not a relay). */
  | { type: 'silent' }
  /** A socket file nobody listens on: the relay that held it is gone (killed, crashed). */
  | { type: 'stale' };

export interface LockOptions {
  /** Called while holding the takeover guard, just before a leftover lock is removed (tests). */
  onTakeover?: () => Promise<void> | void;
  /** How long a probe waits for the holder's line (default 2000 ms). */
  probeTimeoutMs?: number;
}

const GUARD_STALE_MS = 10_000;

/** The lock cannot be used at all here (not: someone else holds it); its message is for the user. */
export class LockError extends Error {}
const TAG = 'agentwire-relay-lock';

interface Identity {
  pid: number;
  dev: number;
  ino: number;
}

function folderId(stateDir: string): { dev: number; ino: number } | undefined {
  try {
    const s = statSync(stateDir);
    return { dev: s.dev, ino: s.ino };
  } catch {
    return undefined;
  }
}

/** Asks whoever listens on `path` who it is; `stateDir` is the folder the lock must name. */
export function probeLock(path: string, stateDir: string, timeoutMs = 2000): Promise<LockState> {
  return new Promise((resolve) => {
    let buf = '';
    let settled = false;
    const done = (s: LockState) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(s);
    };
    const socket = connect(path);
    // Connected but no line: the holder is alive (a dead one cannot accept), so never call it stale.
    const timer = setTimeout(() => done({ type: 'silent' }), timeoutMs);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buf += chunk;
      const nl = buf.indexOf('\n');
      if (nl < 0 && buf.length < 4096) return;
      done(judge(buf.slice(0, nl < 0 ? undefined : nl), stateDir));
    });
    socket.on('end', () => done(judge(buf, stateDir)));
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') done({ type: 'none' });
      // ECONNREFUSED: a socket file with no listener, or (ENOTSOCK-like) a plain file left by an older
      // agentwire that wrote its PID there: either way nobody holds the lock.
      else if (err.code === 'ECONNREFUSED' || err.code === 'ENOTSOCK') done({ type: 'stale' });
      else done({ type: 'silent' });
    });
  });
}

/** The holder's line must name this state folder; anything else listening there is not our owner. */
function judge(line: string, stateDir: string): LockState {
  let v: Partial<Identity> & { tag?: unknown };
  try {
    v = JSON.parse(line) as typeof v;
  } catch {
    return { type: 'silent' };
  }
  const here = folderId(stateDir);
  if (v.tag !== TAG || typeof v.pid !== 'number' || !here) return { type: 'silent' };
  if (v.dev !== here.dev || v.ino !== here.ino) return { type: 'stale' };
  return { type: 'live', pid: v.pid };
}

/** Binds the lock socket; EADDRINUSE (the path exists) is `false`, anything else throws. */
function bindLock(path: string, me: Identity): Promise<Server | false> {
  const line = `${JSON.stringify({ tag: TAG, ...me })}\n`;
  const server = createServer((socket) => {
    socket.on('error', () => undefined);
    socket.end(line);
  });
  return new Promise((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE') return resolve(false);
      // A unix socket path holds at most 107 bytes (108 with its NUL) on Linux, 103 on macOS.
      if (err.code === 'EINVAL' && Buffer.byteLength(path) > 103)
        return reject(
          new LockError(
            `the state folder's path is too long for the relay lock socket ${path}: use a shorter AGENTWIRE_HOME`,
          ),
        );
      reject(err);
    });
    // Private from the first moment: bind() creates the file with the process umask.
    const umask = process.umask(0o177);
    try {
      server.listen(path, () => {
        server.removeAllListeners('error');
        // The lock must not keep a process alive that is otherwise done (send-once, a failed start).
        server.unref();
        resolve(server);
      });
    } finally {
      process.umask(umask);
    }
  });
}

function takeGuard(guard: string): boolean {
  try {
    const fd = openSync(guard, 'wx', 0o600);
    writeSync(fd, `${process.pid}\n`);
    closeSync(fd);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    try {
      if (Date.now() - statSync(guard).mtimeMs > GUARD_STALE_MS) rmSync(guard, { force: true });
    } catch {
      // Gone in the meantime: the next attempt takes it.
    }
    return false;
  }
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Takes the lock at `path` for the relay of `stateDir`, or says who holds it. */
export async function acquireLock(
  path: string,
  stateDir: string,
  opts: LockOptions = {},
): Promise<LockResult> {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const here = folderId(stateDir);
  if (!here) throw new Error(`cannot read the state folder ${stateDir}`);
  const me: Identity = { pid: process.pid, ...here };
  const guard = `${path}.takeover`;
  const timeout = opts.probeTimeoutMs ?? 2000;
  for (let attempt = 0; attempt < 100; attempt++) {
    const server = await bindLock(path, me);
    if (server) {
      return {
        ok: true,
        // libuv unlinks the socket file before closing the descriptor, so a starter never sees a
        // leftover of ours and never removes one a newer owner bound.
        release: () => new Promise<void>((r) => server.close(() => r())),
      };
    }
    const seen = await probeLock(path, stateDir, timeout);
    if (seen.type === 'live') return { ok: false, pid: seen.pid, reason: 'held' };
    if (seen.type === 'silent') return { ok: false, pid: undefined, reason: 'silent' };
    if (seen.type === 'none') continue; // released in the meantime
    if (!takeGuard(guard)) {
      await pause(20);
      continue;
    }
    try {
      await opts.onTakeover?.();
      // Look again under the guard: another starter may have taken over and bound it meanwhile.
      if ((await probeLock(path, stateDir, timeout)).type === 'stale') rmSync(path, { force: true });
    } finally {
      rmSync(guard, { force: true });
    }
  }
  return { ok: false, pid: undefined, reason: 'silent' };
}

/** One sentence for a refused lock, naming the holder when it said who it is. */
export function heldBy(r: { pid: number | undefined; reason: 'held' | 'silent' }): string {
  return r.reason === 'held' ? `pid ${r.pid}` : 'a process that did not say who it is';
}

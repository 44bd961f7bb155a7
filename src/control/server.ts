// The local sockets of a process that runs agents: unix sockets in the state folder, mode 0600,
// speaking newline-delimited JSON. Who creates which: the relay (the one process holding the state
// folder's lock) creates the owner's control socket `relay.sock` and the agent tools' socket
// `tools.sock`; each `agentwire chat` creates a tools socket of its own, `chat-<pid>.sock` beside
// them, so several may run beside a relay without a lock; and a sandboxed run or warm process of
// either gets one more under `tool-sockets/` (`openRunSocket`), which takes only its own token.
// Each path has one owner, so an existing file at a path being opened is a leftover from an owner
// that died, and is replaced. The control socket (`callers: 'owner'`) answers only a caller that
// proved it is not an agent's run (caller.ts); a tools socket (`any`) answers anyone, since each
// of its calls carries a run's token.
import { chmodSync, mkdirSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { dirname } from 'node:path';
import { frameLines } from '../core/ndjson.js';
import type { Logger } from '../log.js';
import { canFindMarked, RUN_MARK_ENV } from '../runner/run-mark.js';
import { type CallerCheck, checkCaller } from './caller.js';
import { MethodError, type MethodRegistry } from './methods.js';
import { type ControlResponse, isHelloLine, MAX_LINE_BYTES, parseHello, parseRequest } from './protocol.js';

export interface ControlServer {
  close(): Promise<void>;
}

export interface ControlServerOptions {
  /**
   * `owner`: the owner's controls; a caller must prove its process id first (caller.ts), and an
   * agent's run (a run mark in its environment or its parents') is refused. `any`: a socket whose
   * every method checks a token of its own (the agent tools' socket).
   */
  callers?: 'owner' | 'any';
}

export async function startControlServer(
  path: string,
  registry: MethodRegistry,
  log: Logger,
  opts: ControlServerOptions = {},
): Promise<ControlServer> {
  // Without /proc (macOS, the BSDs) nothing can be checked; docs/tools.md says what that leaves.
  const guard = opts.callers === 'owner' && canFindMarked();
  if (opts.callers === 'owner' && !guard)
    log.warn('this system has no /proc: the control socket cannot refuse calls from agent runs');
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  rmSync(path, { force: true });
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    serve(socket, registry, log, guard);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // The socket file is created by bind() inside listen(), synchronously, with the process umask:
    // a private umask around it means the file never exists with looser permissions, even for a
    // moment, in a state folder someone else can enter. chmod afterwards is the belt to those braces.
    const umask = process.umask(0o177);
    try {
      server.listen(path, () => {
        server.off('error', reject);
        resolve();
      });
    } finally {
      process.umask(umask);
    }
  });
  chmodSync(path, 0o600);
  return {
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => {
          rmSync(path, { force: true });
          resolve();
        });
      }),
  };
}

/**
 * A tools socket for one sandboxed run or warm process (`callers: 'any'`), made at once: bind()
 * happens inside listen(), synchronously, so the file exists when this returns and a sandbox
 * started next can bind it in. Its registry decides which tokens it takes; `close` removes the file.
 */
export function openRunSocket(path: string, registry: MethodRegistry, log: Logger): ControlServer {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  rmSync(path, { force: true });
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    serve(socket, registry, log, false);
  });
  server.on('error', (err) => log.warn({ err }, 'a run tools socket failed'));
  const umask = process.umask(0o177);
  try {
    server.listen(path);
  } finally {
    process.umask(umask);
  }
  chmodSync(path, 0o600);
  let closed = false;
  return {
    close: () =>
      new Promise<void>((resolve) => {
        if (closed) return resolve();
        closed = true;
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
        rmSync(path, { force: true });
      }),
  };
}

function serve(socket: Socket, registry: MethodRegistry, log: Logger, guard: boolean): void {
  let caller: Promise<CallerCheck> | undefined;
  const reply = (r: ControlResponse) => {
    if (!socket.destroyed) socket.write(`${JSON.stringify(r)}\n`);
  };
  socket.on('error', () => undefined); // a client that went away is not the relay's problem
  frameLines(socket, {
    maxLineBytes: MAX_LINE_BYTES,
    onTooLarge: () => {
      reply({ id: null, ok: false, error: 'request too large' });
      socket.destroy();
    },
    onLine: (record) => {
      // Lines after a refused one in the same chunk are not served: the connection is over.
      if (socket.destroyed) return;
      const line = record.trim();
      if (!line) return;
      if (isHelloLine(line)) {
        // A socket that does not ask (`any`) lets a hello pass unanswered: the same client serves both.
        if (guard && !caller) caller = identify(line);
        return;
      }
      if (!guard) {
        void handle(line, registry, log).then(reply);
        return;
      }
      const who =
        caller ?? Promise.resolve<CallerCheck>({ type: 'unproven', reason: 'it did not say who it is' });
      void who
        .then((c) => (c.type === 'owner' ? handle(line, registry, log) : refuse(line, c, log)))
        .then(reply);
    },
  });
}

function identify(line: string): Promise<CallerCheck> {
  const hello = parseHello(line);
  if (!hello) return Promise.resolve({ type: 'unproven', reason: 'its hello was malformed' });
  return checkCaller(hello, { ownMark: process.env[RUN_MARK_ENV] }).catch(
    (err: unknown): CallerCheck => ({ type: 'unproven', reason: `checking it failed (${String(err)})` }),
  );
}

/** The caller's short reason, and a log line saying why (the method only: never params, bodies or numbers). */
function refuse(line: string, c: Exclude<CallerCheck, { type: 'owner' }>, log: Logger): ControlResponse {
  const parsed = parseRequest(line);
  const id = parsed.ok ? parsed.request.id : null;
  const method = parsed.ok ? parsed.request.method.slice(0, 40) : undefined;
  if (c.type === 'agent_run') {
    log.warn(
      { method, pid: c.pid, markedPid: c.markedPid },
      "control request refused: the caller is an agent run (a run mark in its environment or a parent's)",
    );
    const whose = c.markedPid === c.pid ? 'carries' : `descends from process ${c.markedPid}, which carries`;
    return {
      id,
      ok: false,
      error:
        `the relay refuses control requests from an agent's run: process ${c.pid} ${whose} an agentwire ` +
        'run mark. Run it from your own terminal, not from inside the agent.',
    };
  }
  log.warn({ method, reason: c.reason }, 'control request refused: the caller could not be identified');
  return {
    id,
    ok: false,
    error: `the relay could not tell which process is calling (${c.reason}), so it refuses; use this install's agentwire command`,
  };
}

async function handle(line: string, registry: MethodRegistry, log: Logger): Promise<ControlResponse> {
  const parsed = parseRequest(line);
  if (!parsed.ok) return { id: null, ok: false, error: parsed.error };
  const { id, method, params } = parsed.request;
  const handler = registry.get(method);
  if (!handler)
    return {
      id,
      ok: false,
      error: `unknown method ${method.slice(0, 40)} (known: ${registry.names().join(', ')})`,
    };
  try {
    return { id, ok: true, result: await handler(params) };
  } catch (err) {
    if (err instanceof MethodError) return { id, ok: false, error: err.message };
    log.error({ err, method }, 'control method failed');
    return { id, ok: false, error: `${method} failed; see the relay log` };
  }
}

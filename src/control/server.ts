// The running relay's local control socket: a unix socket in the state folder, mode 0600, speaking
// newline-delimited JSON. Only the relay that holds the lock creates it, so an existing socket file
// at start is a leftover from a relay that died and is replaced.
import { chmodSync, mkdirSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { dirname } from 'node:path';
import type { Logger } from '../log.js';
import { MethodError, type MethodRegistry } from './methods.js';
import { type ControlResponse, MAX_LINE_BYTES, parseRequest } from './protocol.js';

export interface ControlServer {
  close(): Promise<void>;
}

export async function startControlServer(
  path: string,
  registry: MethodRegistry,
  log: Logger,
): Promise<ControlServer> {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  rmSync(path, { force: true });
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    serve(socket, registry, log);
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

function serve(socket: Socket, registry: MethodRegistry, log: Logger): void {
  let buf = '';
  socket.setEncoding('utf8');
  const reply = (r: ControlResponse) => {
    if (!socket.destroyed) socket.write(`${JSON.stringify(r)}\n`);
  };
  socket.on('error', () => undefined); // a client that went away is not the relay's problem
  socket.on('data', (chunk: string) => {
    buf += chunk;
    if (Buffer.byteLength(buf) > MAX_LINE_BYTES && !buf.includes('\n')) {
      reply({ id: null, ok: false, error: 'request too large' });
      socket.destroy();
      return;
    }
    for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
      const line = buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
      if (line) void handle(line, registry, log).then(reply);
    }
  });
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

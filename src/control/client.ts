// Calls a method on the running relay's control socket. Errors are values: a missing or refusing
// socket means no relay is running, which callers report in their own words. Every call first says
// which process calls (a hello with the proof caller.ts checks): the relay's own socket refuses
// a call that does not, and a socket that does not ask lets the hello pass.
import { randomBytes, randomUUID } from 'node:crypto';
import { connect, createServer, type Server } from 'node:net';
import { frameLines } from '../core/ndjson.js';

// An answer is one JSON line; a status of many chats stays far below this, and a peer that never
// ends its line cannot make the caller hold more.
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

export type ControlCall = { ok: true; result: unknown } | { ok: false; error: string; notRunning: boolean };

export async function callControl(
  path: string,
  method: string,
  params?: unknown,
  opts: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<ControlCall> {
  const proof = await listenForProof();
  try {
    return await exchange(path, `${proof?.hello ?? ''}${JSON.stringify({ id: 1, method, params })}\n`, opts);
  } finally {
    proof?.server.close();
  }
}

/**
 * An abstract socket (no file; Linux only) that answers each connection with this call's secret.
 * Where it cannot listen, the call goes without a hello and only a socket that does not ask takes it.
 */
function listenForProof(): Promise<{ server: Server; hello: string } | undefined> {
  if (process.platform !== 'linux') return Promise.resolve(undefined);
  const name = `agentwire-peer-${randomUUID()}`;
  const secret = randomBytes(24).toString('hex');
  const server = createServer((s) => {
    s.on('error', () => undefined);
    s.end(`${secret}\n`);
  });
  return new Promise((resolve) => {
    server.once('error', () => resolve(undefined));
    server.listen(`\0${name}`, () => {
      server.unref();
      resolve({ server, hello: `${JSON.stringify({ hello: { pid: process.pid, name, secret } })}\n` });
    });
  });
}

function exchange(
  path: string,
  lines: string,
  opts: { timeoutMs?: number; signal?: AbortSignal },
): Promise<ControlCall> {
  return new Promise((resolve) => {
    let settled = false;
    const done = (r: ControlCall) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      socket.destroy();
      resolve(r);
    };
    const onAbort = () => done({ ok: false, error: 'the call was cancelled', notRunning: false });
    const socket = connect(path);
    const timer = setTimeout(
      () => done({ ok: false, error: 'the relay did not answer in time', notRunning: false }),
      opts.timeoutMs ?? 10_000,
    );
    if (opts.signal?.aborted) onAbort();
    else opts.signal?.addEventListener('abort', onAbort, { once: true });
    socket.on('connect', () => socket.write(lines));
    frameLines(socket, {
      maxLineBytes: MAX_ANSWER_BYTES,
      onTooLarge: () =>
        done({ ok: false, error: 'the relay sent an answer too large to read', notRunning: false }),
      onLine: (line) => {
        if (settled) return;
        let r: { id?: unknown; ok: boolean; result?: unknown; error?: string };
        try {
          r = JSON.parse(line) as typeof r;
        } catch {
          done({ ok: false, error: 'the relay sent an unreadable answer', notRunning: false });
          return;
        }
        // A relay from before the hello answers it as a bad request (without our id): the answer
        // to the call is the line with its id.
        if (r.id !== 1 && r.error !== 'request too large') return;
        done(
          r.ok ? { ok: true, result: r.result } : { ok: false, error: String(r.error), notRunning: false },
        );
      },
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      const gone = err.code === 'ENOENT' || err.code === 'ECONNREFUSED';
      done({ ok: false, error: gone ? 'the relay is not running' : err.message, notRunning: gone });
    });
    socket.on('close', () =>
      done({ ok: false, error: 'the relay closed the connection', notRunning: false }),
    );
  });
}

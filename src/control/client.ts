// Calls a method on the running relay's control socket. Errors are values: a missing or refusing
// socket means no relay is running, which callers report in their own words.
import { connect } from 'node:net';

export type ControlCall = { ok: true; result: unknown } | { ok: false; error: string; notRunning: boolean };

export function callControl(
  path: string,
  method: string,
  params?: unknown,
  opts: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<ControlCall> {
  return new Promise((resolve) => {
    let settled = false;
    let buf = '';
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
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(`${JSON.stringify({ id: 1, method, params })}\n`));
    socket.on('data', (chunk: string) => {
      buf += chunk;
      const nl = buf.indexOf('\n');
      if (nl < 0) return;
      try {
        const r = JSON.parse(buf.slice(0, nl)) as { ok: boolean; result?: unknown; error?: string };
        done(
          r.ok ? { ok: true, result: r.result } : { ok: false, error: String(r.error), notRunning: false },
        );
      } catch {
        done({ ok: false, error: 'the relay sent an unreadable answer', notRunning: false });
      }
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

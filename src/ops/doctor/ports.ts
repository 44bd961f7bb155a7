// Whether a TCP port can be bound, by binding it for a moment: the only answer that matches what
// the relay will meet (another process, a privileged port, an address this host does not have).
import { createServer } from 'node:net';

export type PortState =
  | { type: 'free' }
  | { type: 'busy' }
  | { type: 'error'; code: string; message: string };

export function probePort(host: string, port: number): Promise<PortState> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (err: NodeJS.ErrnoException) =>
      resolve(
        err.code === 'EADDRINUSE'
          ? { type: 'busy' }
          : { type: 'error', code: err.code ?? 'ERROR', message: err.message },
      ),
    );
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve({ type: 'free' })));
  });
}

/** A shell command that shows who holds a port, for the fix text. */
export const whoHolds = (port: number): string =>
  `ss -ltnp 'sport = :${port}'  (or: lsof -iTCP:${port} -sTCP:LISTEN)`;

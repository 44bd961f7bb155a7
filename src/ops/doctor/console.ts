// The web console: its port must be free for the relay to serve it, and a non-loopback bind is
// worth a warning (the token protects it, but over plain HTTP).
import type { Config } from '../../config/schema.js';
import { type PortState, whoHolds } from './ports.js';
import { type Finding, fail, ok, warn } from './types.js';

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

export function checkConsole(config: Config, port: PortState | 'relay_running' | undefined): Finding[] {
  const c = config.console;
  if (!c.enabled) return [ok('console', 'disabled in the config')];
  const out: Finding[] = [];
  if (!LOOPBACK.has(c.host))
    out.push(
      warn(
        'console',
        `the console listens on ${c.host}, reachable from other machines, over plain HTTP`,
        'keep console.host at 127.0.0.1 and reach it through an SSH tunnel: ssh -L 8788:127.0.0.1:8788 <server>',
      ),
    );
  if (port === 'relay_running') out.push(ok('console', `port ${c.port}: served by the running relay`));
  else if (port?.type === 'busy')
    out.push(
      fail(
        'console',
        `console port ${c.host}:${c.port} is already in use`,
        `free it (${whoHolds(c.port)}) or change console.port`,
      ),
    );
  else if (port?.type === 'error')
    out.push(
      fail(
        'console',
        `cannot listen on ${c.host}:${c.port} (${port.code})`,
        'change console.host or console.port',
      ),
    );
  else out.push(ok('console', `port ${c.host}:${c.port} is free for the console`));
  return out;
}

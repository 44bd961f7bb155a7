// The web console as a relay service: started with the relay when console.enabled, on
// console.host:console.port, with the token from the state folder. Add `webConsoleService()` to the
// services the relay starts (relay.ts SERVICE_FACTORIES). A port in use is logged and the relay runs
// on without its console: relaying messages matters more than the page.

import type { Channel } from '../channels/types.js';
import { isLinkable } from '../channels/whatsapp/link-control.js';
import type { Paths } from '../config/paths.js';
import type { Config } from '../config/schema.js';
import type { ChannelName, SystemRunner } from '../core/types.js';
import type { Logger } from '../log.js';
import { registerCredential } from '../log.js';
import { liveStatus } from '../ops/status/live.js';
import type { QueueStatus } from '../queue/queue.js';
import type { StatusReader } from '../store/status-read.js';
import { VERSION } from '../version.js';
import { qrOf } from './qr.js';
import type { HttpRoutes } from './routes.js';
import { startWebConsole, type WebConsole } from './server.js';
import { ensureConsoleToken, TOKEN_FILE } from './token.js';

export interface WebConsoleServiceOptions {
  /** Where the start-up line goes (default stderr). */
  print?: (line: string) => void;
  /** Whether a person watches that output; the token is printed only then (default: stderr is a TTY). */
  interactive?: boolean;
  pollMs?: number;
}

/** What the relay hands the service (structurally its ServiceDeps; typed here so web/ stays below relay.ts). */
export interface WebConsoleDeps {
  config: Config;
  paths: Paths;
  log: Logger;
  runner: SystemRunner;
  channels: ReadonlyMap<ChannelName, Channel>;
  store: { status: StatusReader };
  /** Routes other services added (the hooks), served before the token check. */
  http?: Pick<HttpRoutes, 'match'>;
}

interface Service {
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function webConsoleService(opts: WebConsoleServiceOptions = {}): {
  name: string;
  create: (deps: WebConsoleDeps) => Service;
} {
  return { name: 'console', create: (deps) => create(deps, opts) };
}

type QueueLike = SystemRunner & { status(): Promise<QueueStatus> };
const hasStatus = (r: SystemRunner): r is QueueLike => typeof (r as Partial<QueueLike>).status === 'function';

function create(deps: WebConsoleDeps, opts: WebConsoleServiceOptions): Service {
  const { config, paths, log } = deps;
  let web: WebConsole | undefined;
  const startedAt = Date.now();
  return {
    async start() {
      if (!config.console.enabled) return;
      if (!hasStatus(deps.runner)) throw new Error('the web console needs the relay queue (with status())');
      const queue = deps.runner;
      const token = ensureConsoleToken(paths.home);
      registerCredential(token);
      const status = liveStatus({
        store: deps.store.status,
        config,
        channels: () => [...deps.channels].map(([name, ch]) => ({ name, state: ch.status() })),
        queue: () => queue.status(),
        startedAt,
        version: VERSION,
      });
      const whatsapp = deps.channels.get('whatsapp');
      try {
        web = await startWebConsole({
          host: config.console.host,
          port: config.console.port,
          token,
          status,
          whatsappQr: () => (whatsapp ? qrOf(whatsapp.status()) : undefined),
          ...(isLinkable(whatsapp) && { whatsappLink: () => whatsapp.link() }),
          log,
          ...(deps.http && { routes: deps.http }),
          pollMs: opts.pollMs,
        });
      } catch (err) {
        log.warn({ err: (err as Error).message }, 'web console not started');
        return;
      }
      const print = opts.print ?? ((line: string) => void process.stderr.write(line));
      print(
        startLine(web.url, opts.interactive ?? Boolean(process.stderr.isTTY), `${paths.home}/${TOKEN_FILE}`),
      );
      log.info({ port: web.port }, 'web console listening');
    },
    async stop() {
      await web?.close();
      web = undefined;
    },
  };
}

/**
 * With a person at the terminal the URL carries the token; under a service manager (whose logs
 * other admins may read) it names the token file instead.
 */
export function startLine(url: string, interactive: boolean, tokenFile: string): string {
  if (interactive) return `Web console: ${url}\n`;
  const bare = url.replace(/\?token=.*$/, '');
  return `Web console: ${bare} (open ${bare}?token=<the token in ${tokenFile}>)\n`;
}

// The local web console: express on console.host:console.port (127.0.0.1 by default), every route
// behind the token except GET /healthz, which monitors poll and which says only the health word and
// each channel's state. The relay injects where the data comes from; nothing here touches the store.
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import QRCode from 'qrcode';
import type { Logger } from '../log.js';
import type { StatusSnapshot } from '../ops/status/snapshot.js';
import { requireToken } from './auth.js';
import { type ConsoleData, renderPage } from './page.js';
import type { HttpRoutes } from './routes.js';

export interface WebConsoleDeps {
  host: string;
  port: number;
  /** From ensureConsoleToken(paths.home). */
  token: string;
  /** The current status, as the control socket's `status` method returns it. */
  status: () => StatusSnapshot | Promise<StatusSnapshot>;
  /** The text of the QR code WhatsApp wants scanned right now, if it is linking. */
  whatsappQr?: () => string | undefined;
  /** Starts linking WhatsApp again when its link is dead (the relay's `whatsapp.link`). */
  whatsappLink?: () => Promise<unknown>;
  log?: Logger;
  /** Other services' routes (hooks), each with its own authentication. */
  routes?: Pick<HttpRoutes, 'match'>;
  /** How often the page polls. */
  pollMs?: number;
}

export interface WebConsole {
  /** The address to open, with the token. */
  url: string;
  port: number;
  close(): Promise<void>;
}

export async function startWebConsole(deps: WebConsoleDeps): Promise<WebConsole> {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  const qrImage = qrCache();

  const data = async (): Promise<ConsoleData> => {
    const snapshot = await deps.status();
    const wa = snapshot.channels.find((c) => c.name === 'whatsapp');
    const text = wa?.state === 'connecting' ? deps.whatsappQr?.() : undefined;
    return { snapshot, qr: text ? await qrImage(text) : null };
  };

  app.use((_req, res, next) => {
    res.set({
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
      'X-Frame-Options': 'DENY',
      'Referrer-Policy': 'no-referrer',
    });
    next();
  });

  app.get('/healthz', async (_req, res) => {
    try {
      const s = await deps.status();
      // The last liveness check per channel that has one (WhatsApp): ok or not, and when. Its words
      // stay behind the token, like every error text.
      const checks = Object.fromEntries(
        s.channels.flatMap((c) => (c.probe ? [[c.name, { ok: c.probe.ok, at: c.probe.at }]] : [])),
      );
      res.status(s.health === 'down' ? 503 : 200).json({
        status: s.health,
        channels: Object.fromEntries(s.channels.map((c) => [c.name, c.state])),
        ...(Object.keys(checks).length > 0 && { checks }),
      });
    } catch (err) {
      deps.log?.warn({ err }, 'console: status unavailable');
      res.status(503).json({ status: 'down', channels: {} });
    }
  });

  // Before the token: a hook authenticates itself (a signature or its own bearer secret).
  app.use((req, res, next) => {
    const route = deps.routes?.match(req.path);
    if (!route) {
      next();
      return;
    }
    route.handler(req, res, route.rest);
  });

  app.use(requireToken(deps.token));

  app.get('/', async (_req, res, next) => {
    try {
      const nonce = randomBytes(16).toString('base64');
      res.set(
        'Content-Security-Policy',
        `default-src 'none'; img-src data:; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
      );
      res.type('html').send(renderPage(await data(), nonce, deps.pollMs ?? 1500));
    } catch (err) {
      next(err);
    }
  });

  app.get('/api/status', async (_req, res, next) => {
    try {
      res.json(await data());
    } catch (err) {
      next(err);
    }
  });

  // Relinking from the console: the page's button posts here, and the new QR code then
  // shows in the status as usual. A custom header is required besides the token: a form or a
  // cross-site request cannot set one without a preflight this server never answers.
  app.post('/api/whatsapp/link', async (req, res, next) => {
    if (req.get('x-agentwire-action') !== 'link') {
      res.status(403).json({ error: 'missing X-Agentwire-Action: link' });
      return;
    }
    if (!deps.whatsappLink) {
      res.status(404).json({ error: 'WhatsApp is not running in this relay' });
      return;
    }
    try {
      res.json(await deps.whatsappLink());
    } catch (err) {
      next(err);
    }
  });

  app.use((_req, res) => {
    res.status(404).json({ error: 'not found' });
  });
  // Express's default error page would show a stack trace; say little.
  app.use((err: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    deps.log?.warn({ err }, 'console: request failed');
    res.status(500).json({ error: 'status unavailable' });
  });

  const server = await listen(app, deps.host, deps.port);
  const port = (server.address() as AddressInfo).port;
  const shownHost = deps.host === '0.0.0.0' || deps.host === '::' ? '127.0.0.1' : deps.host;
  const hostPart = shownHost.includes(':') ? `[${shownHost}]` : shownHost;
  return {
    url: `http://${hostPart}:${port}/?token=${encodeURIComponent(deps.token)}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // The page polls over keep-alive connections; without this close would wait for them.
        server.closeAllConnections();
      }),
  };
}

function listen(app: express.Express, host: string, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host);
    const onError = (err: NodeJS.ErrnoException) =>
      reject(new Error(`the web console cannot listen on ${host}:${port}: ${err.code ?? err.message}`));
    server.once('error', onError);
    server.once('listening', () => {
      server.off('error', onError);
      resolve(server);
    });
  });
}

/** Renders each QR text once: the page polls far more often than WhatsApp rotates the code. */
function qrCache(): (text: string) => Promise<string> {
  let last: { text: string; url: Promise<string> } | undefined;
  return (text) => {
    if (last?.text !== text)
      last = { text, url: QRCode.toDataURL(text, { errorCorrectionLevel: 'M', margin: 2, width: 264 }) };
    return last.url;
  };
}

// The optional Events API server (mode "http"): Slack POSTs each event, signed. The body is read
// (capped) because the signature covers it; a request without a valid signature, or one older than
// five minutes, gets 401 and leaves nothing behind: nothing parsed, stored or logged. A good one is
// answered 200 once handled (the message durable), 500 otherwise so Slack sends it again.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Ack, Envelope } from './inbound.js';
import { verifySignature } from './signature.js';

/** An event is a few kB; this leaves room for long texts with many files. */
const MAX_BODY_BYTES = 1024 * 1024;

export interface EventsServerOptions {
  host: string;
  port: number;
  path: string;
  signingSecret: string;
  handle: (env: Envelope) => Promise<Ack>;
  onRefused?: (reason: 'path' | 'signature' | 'body') => void;
  nowSeconds?: () => number;
}

async function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return undefined;
    parts.push(chunk as Buffer);
  }
  return Buffer.concat(parts);
}

interface Callback {
  type?: string;
  challenge?: string;
  event_id?: string;
  team_id?: string;
  event?: Envelope['event'];
}

export async function startEventsServer(o: EventsServerOptions): Promise<{ server: Server; port: number }> {
  const now = o.nowSeconds ?? (() => Math.floor(Date.now() / 1000));
  const server = createServer((req, res) => {
    const end = (status: number, body?: string) => {
      res
        .writeHead(status, { 'content-type': body ? 'application/json' : 'text/plain', connection: 'close' })
        .end(body);
    };
    if (req.method !== 'POST' || (req.url ?? '').split('?')[0] !== o.path) {
      o.onRefused?.('path');
      req.resume();
      return end(404);
    }
    void (async () => {
      const body = await readBody(req).catch(() => undefined);
      const signed =
        body !== undefined &&
        verifySignature(
          o.signingSecret,
          {
            timestamp: req.headers['x-slack-request-timestamp'],
            signature: req.headers['x-slack-signature'],
            body,
          },
          now(),
        );
      if (!signed) {
        o.onRefused?.('signature');
        return end(401);
      }
      let cb: Callback;
      try {
        cb = JSON.parse(body.toString('utf8')) as Callback;
      } catch {
        o.onRefused?.('body');
        return end(400);
      }
      if (cb.type === 'url_verification' && typeof cb.challenge === 'string')
        return end(200, JSON.stringify({ challenge: cb.challenge }));
      if (cb.type !== 'event_callback' || !cb.event || typeof cb.event !== 'object') return end(200);
      const retry = Number(req.headers['x-slack-retry-num']);
      try {
        const ack = await o.handle({
          event: cb.event,
          ...(cb.event_id && { eventId: cb.event_id }),
          ...(cb.team_id && { teamId: cb.team_id }),
          ...(Number.isInteger(retry) && { retryNum: retry }),
        });
        end(ack === 'ack' ? 200 : 500);
      } catch {
        end(500);
      }
    })();
  });
  server.requestTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => resolve());
  });
  return { server, port: (server.address() as AddressInfo).port };
}

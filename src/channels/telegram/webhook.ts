// The optional webhook: Telegram POSTs each update with the secret set by setWebhook in the
// X-Telegram-Bot-Api-Secret-Token header. A request without it or with a wrong one gets 403 before
// its body is read, and leaves nothing behind: nothing stored, its body never logged. A good one is
// answered 200 only once handled, so Telegram delivers it again if the relay fails midway.
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Update } from 'grammy/types';

export const SECRET_HEADER = 'x-telegram-bot-api-secret-token';
/** An update is a few kB; this leaves room for long texts and many entities. */
const MAX_BODY_BYTES = 1024 * 1024;

export interface WebhookOptions {
  host: string;
  port: number;
  path: string;
  secret: string;
  handle: (update: Update) => Promise<void>;
  onRefused?: (reason: 'secret' | 'path' | 'body') => void;
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Constant-time comparison of the header with the secret (both hashed to the same length first). */
export function secretMatches(header: string | string[] | undefined, secret: string): boolean {
  if (typeof header !== 'string') return false;
  return timingSafeEqual(digest(header), digest(secret));
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

export async function startWebhook(opts: WebhookOptions): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    const end = (status: number) => {
      res.writeHead(status, { 'content-type': 'text/plain', connection: 'close' }).end();
    };
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'POST' || path !== opts.path) {
      opts.onRefused?.('path');
      req.resume();
      return end(404);
    }
    if (!secretMatches(req.headers[SECRET_HEADER], opts.secret)) {
      opts.onRefused?.('secret');
      // Not read, not kept: the connection closes after the 403.
      return end(403);
    }
    void (async () => {
      const body = await readBody(req).catch(() => undefined);
      let update: Update | undefined;
      try {
        update = body ? (JSON.parse(body.toString('utf8')) as Update) : undefined;
      } catch {
        update = undefined;
      }
      if (!update || typeof update.update_id !== 'number') {
        opts.onRefused?.('body');
        return end(400);
      }
      try {
        await opts.handle(update);
        end(200);
      } catch {
        end(500);
      }
    })();
  });
  server.requestTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  return { server, port: (server.address() as AddressInfo).port };
}

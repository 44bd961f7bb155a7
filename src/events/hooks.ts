// `POST /hooks/<name>`: a webhook wakes the agent in the hook's chat. The order of checks keeps a
// stranger cheap and traceless: unknown hook → 404; a wrong bearer → 401 before any body is read; a
// declared length over the cap → 413 at once; the body is read with the cap and a deadline (413,
// 408: a slow-loris sender is cut off); then the signature over the raw body (401). Only an
// authenticated request is stored (deduplicated on its delivery id), and only then answered 202.
// Refusals are counted, not logged one by one: a flood of bad requests must not flood the log.
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HookConfig } from '../config/schema-events.js';
import type { ChatKey } from '../core/types.js';
import type { Logger } from '../log.js';
import type { EventStore } from '../store/events.js';
import type { EventOptions } from './event-file.js';
import { hookPrompt } from './prompt.js';
import { checkBearer, checkHookAuth } from './signature.js';

export interface HookDeps {
  hooks: Readonly<Record<string, HookConfig & { resolved: ChatKey }>>;
  store: Pick<EventStore, 'addAll'>;
  now: () => number;
  log: Logger;
  /** An event was stored: run it. */
  stored: () => void;
}

export type RefusalKind = 'unknown' | 'unauthorized' | 'too_large' | 'timeout' | 'method';

export interface HookHandler {
  (req: IncomingMessage, res: ServerResponse, name: string): void;
  refused(): Readonly<Record<RefusalKind, number>>;
}

type BodyRead =
  | { type: 'ok'; body: Buffer }
  | { type: 'too_large' }
  | { type: 'timeout' }
  | { type: 'aborted' };

/** Reads a body up to `max` bytes within `timeoutMs`; never buffers more than `max`. */
export function readBody(req: IncomingMessage, max: number, timeoutMs: number): Promise<BodyRead> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const done = (r: BodyRead) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onAbort);
      req.off('aborted', onAbort);
      if (r.type !== 'ok') req.pause();
      resolve(r);
    };
    const onData = (c: Buffer) => {
      size += c.length;
      if (size > max) return done({ type: 'too_large' });
      chunks.push(c);
    };
    const onEnd = () => done({ type: 'ok', body: Buffer.concat(chunks, size) });
    const onAbort = () => done({ type: 'aborted' });
    const timer = setTimeout(() => done({ type: 'timeout' }), timeoutMs);
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onAbort);
    req.on('aborted', onAbort);
  });
}

const header = (req: IncomingMessage, name: string): string | undefined => {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

/** A delivery id fit for a key: GitHub's, or a sender's Idempotency-Key; printable, bounded. */
function deliveryId(req: IncomingMessage): string | undefined {
  const id = header(req, 'x-github-delivery') ?? header(req, 'idempotency-key');
  return id && /^[\x21-\x7e]{1,200}$/.test(id) ? id : undefined;
}

export function createHookHandler(d: HookDeps): HookHandler {
  const counts: Record<RefusalKind, number> = {
    unknown: 0,
    unauthorized: 0,
    too_large: 0,
    timeout: 0,
    method: 0,
  };
  const refuse = (res: ServerResponse, status: number, kind: RefusalKind, close = false): void => {
    const n = ++counts[kind];
    // 1, 10, 100…: enough to notice, never one line per request.
    if (Number.isInteger(Math.log10(n))) d.log.info({ refused: kind, count: n }, 'hooks: requests refused');
    if (!res.headersSent) {
      res.writeHead(status, {
        'content-type': 'application/json',
        ...(close && { connection: 'close' }),
      });
      res.end(JSON.stringify({ error: status === 401 ? 'unauthorized' : kind.replace('_', ' ') }));
    }
    // The rest of a body we will not read is not waited for.
    if (close) res.once('finish', () => res.socket?.destroy());
  };

  const handle = async (req: IncomingMessage, res: ServerResponse, name: string): Promise<void> => {
    if (req.method !== 'POST') return refuse(res, 405, 'method');
    const hook = Object.hasOwn(d.hooks, name) ? d.hooks[name] : undefined;
    if (!hook) return refuse(res, 404, 'unknown', true);
    const authorization = header(req, 'authorization');
    if (checkBearer(authorization, hook.secret) === false) return refuse(res, 401, 'unauthorized', true);
    const signature = header(req, 'x-hub-signature-256');
    if (authorization === undefined && signature === undefined) return refuse(res, 401, 'unauthorized', true);
    const declared = Number(header(req, 'content-length'));
    if (Number.isFinite(declared) && declared > hook.maxBodyBytes) return refuse(res, 413, 'too_large', true);
    const read = await readBody(req, hook.maxBodyBytes, hook.bodyTimeoutSeconds * 1000);
    if (read.type === 'too_large') return refuse(res, 413, 'too_large', true);
    if (read.type === 'timeout') return refuse(res, 408, 'timeout', true);
    if (read.type === 'aborted') return;
    const auth = checkHookAuth({ authorization, signature }, read.body, hook.secret);
    if (auth.type !== 'ok') return refuse(res, 401, 'unauthorized', true);
    // No delivery id: the body itself names the delivery, so a replayed body runs once.
    const id = deliveryId(req) ?? `body:${createHash('sha256').update(read.body).digest('hex')}`;
    const options: EventOptions = {
      ...(hook.session !== undefined && { session: hook.session }),
      ...(hook.agent !== undefined && { agent: hook.agent }),
      ...(hook.quiet && { quiet: true }),
      ...(hook.activeHours && { activeHours: true }),
    };
    const now = d.now();
    const prompt = hookPrompt({
      hook: name,
      template: hook.prompt,
      eventName: header(req, 'x-github-event'),
      body: read.body.toString('utf8'),
      quiet: hook.quiet,
    });
    let result: Awaited<ReturnType<HookDeps['store']['addAll']>>[number] | undefined;
    try {
      [result] = await d.store.addAll(
        [
          {
            key: `hook:${name}:${id}`,
            source: `hook:${name}`,
            chat: hook.resolved,
            prompt,
            dueAt: now,
            orderName: `hook:${name}`,
            options: JSON.stringify(options),
          },
        ],
        now,
      );
    } catch (err) {
      d.log.error({ hook: name, err }, 'hooks: could not store the event');
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '30' });
      res.end(JSON.stringify({ error: 'not stored; try again' }));
      return;
    }
    if (!result) throw new Error('the store answered no result');
    if (result.type === 'duplicate') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ duplicate: true, event: result.id }));
      return;
    }
    d.log.info({ hook: name, event: result.id, by: auth.by }, 'hooks: event stored');
    res.writeHead(202, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ accepted: true, event: result.id }));
    d.stored();
  };

  const handler = ((req, res, name) => {
    handle(req, res, name).catch((err: unknown) => {
      d.log.error({ hook: name, err }, 'hooks: request failed');
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 'failed' }));
      }
    });
  }) as HookHandler;
  handler.refused = () => ({ ...counts });
  return handler;
}

// The express app Twilio talks to: the inbound-message webhook, delivery status callbacks, and the
// short-lived outbound media URLs. The signature is checked before anything else looks at a request;
// a request that fails it leaves no trace beyond one warning line without URL query, body or token.
import { pipeline } from 'node:stream/promises';
import express, { type NextFunction, type Request, type Response } from 'express';
import twilio from 'twilio';
import { answering } from '../../core/answering.js';
import type { Logger } from '../../log.js';
import type { MediaHost } from '../../media/host.js';
import { servedHeaders } from '../../media/serve.js';
import type { InboundDecision } from './inbound.js';
import { type ParsedInbound, parseInboundParams } from './params.js';
import type { TwilioSettings } from './settings.js';
import { signedUrlCandidates, verifySignature } from './signature.js';

const FORM = 'application/x-www-form-urlencoded';

export interface AppDeps {
  settings: TwilioSettings;
  log: Logger;
  host?: MediaHost;
  /** Must resolve quickly: it stores the message and returns; the agent runs elsewhere. */
  onInbound(parsed: ParsedInbound): Promise<InboundDecision>;
  onStatus(update: { sid: string; status: string; errorCode?: string }): void | Promise<void>;
}

export function createTwilioApp(deps: AppDeps): express.Express {
  const { settings, log } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // Only form bodies are parsed; anything else leaves req.body empty and is refused after the check.
  const form = express.urlencoded({ extended: false, type: FORM, limit: '100kb', parameterLimit: 500 });

  const guard = (publicUrl: string | undefined) => (req: Request, res: Response, next: NextFunction) => {
    if (settings.insecureSkipSignature) return next();
    if (!settings.authToken) {
      // Fail closed: without the token nothing can be verified, so nothing is accepted.
      res.status(500).type('text/plain').send('webhook not configured');
      return;
    }
    const params = (req.body ?? {}) as Record<string, unknown>;
    const urls = signedUrlCandidates(req, publicUrl);
    if (!verifySignature(settings.authToken, req.get('x-twilio-signature'), urls, params)) {
      log.warn({ path: req.path }, 'twilio: webhook signature rejected');
      res.status(403).type('text/plain').send('forbidden');
      return;
    }
    next();
  };

  const bad = (res: Response, reason: string) => {
    log.warn({ reason }, 'twilio: malformed webhook refused');
    res.status(400).type('text/plain').send('bad request');
  };

  // Counted from the moment the request is in hand until its answer is written: agent starts wait
  // for these answers (core/answering.ts), so Twilio's 200 does not queue behind a fork.
  const inHand = (_req: Request, res: Response, next: NextFunction) => {
    const done = answering();
    res.once('finish', done);
    res.once('close', done);
    next();
  };

  app.post(settings.inboundPath, inHand, form, guard(settings.publicUrl), async (req, res) => {
    if (!req.is(FORM)) return bad(res, 'content type is not form-encoded');
    const parsed = parseInboundParams(req.body);
    if (!parsed.ok) return bad(res, parsed.reason);
    const decision = await deps.onInbound(parsed.value);
    switch (decision.type) {
      case 'accepted':
        return twiml(res);
      case 'refused':
        return twiml(res, decision.reply);
      case 'invalid':
        return bad(res, decision.reason);
      case 'failed':
        // A 5xx, not a 2xx: Twilio delivers it again when the webhook URL asks it to retry on 5xx
        // (`#rc=3&rp=all`, docs/twilio.md). The message was held and retried before this answer.
        res.status(503).set('retry-after', '1').type('text/plain').send('not stored, try again');
        return;
    }
  });

  app.post(settings.statusPath, form, guard(settings.publicStatusUrl), async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const { MessageSid: sid, MessageStatus: status, ErrorCode: errorCode } = body;
    if (typeof sid === 'string' && typeof status === 'string') {
      await deps.onStatus({
        sid,
        status,
        errorCode: typeof errorCode === 'string' && errorCode ? errorCode : undefined,
      });
    }
    res.status(204).end();
  });

  // GET also answers HEAD in express; Twilio may probe with either.
  app.get(`${settings.mediaPath}/:name`, async (req, res) => {
    const file = await deps.host?.lookup(String(req.params.name));
    if (!file) {
      res.status(404).type('text/plain').send('not found');
      return;
    }
    // Agent-written bytes on a public URL: never served as active content (media/serve.ts).
    res.set(servedHeaders(file.mimeType, file.sizeBytes));
    if (req.method === 'HEAD') return void res.end();
    await pipeline(file.open(), res).catch(() => res.destroy());
  });

  app.use((_req: Request, res: Response) => {
    res.status(404).type('text/plain').send('not found');
  });
  // Body-parser and handler errors: a short status, never a stack trace or the body.
  app.use(
    (
      err: { status?: number; type?: string; message?: string },
      _req: Request,
      res: Response,
      _n: NextFunction,
    ) => {
      const status = err.status && err.status >= 400 && err.status < 500 ? err.status : 500;
      if (status === 500) log.error({ error: err.message }, 'twilio: webhook handler failed');
      else log.warn({ type: err.type ?? 'client_error' }, 'twilio: unreadable webhook refused');
      res
        .status(status)
        .type('text/plain')
        .send(status === 500 ? 'error' : 'bad request');
    },
  );
  return app;
}

// The acknowledgement of nearly every message: built once, not per request (bench/webhook-ack).
const EMPTY_TWIML = new twilio.twiml.MessagingResponse().toString();

function twiml(res: Response, message?: string): void {
  let body = EMPTY_TWIML;
  if (message) {
    const r = new twilio.twiml.MessagingResponse();
    r.message(message);
    body = r.toString();
  }
  res.status(200).type('text/xml').send(body);
}

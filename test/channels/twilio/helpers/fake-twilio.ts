// A fake of Twilio's REST API on 127.0.0.1 (the far edge): it records message creates, fails them on
// demand with Twilio's error bodies, lists inbound messages for polling, and serves inbound media
// behind Basic auth — honestly, endlessly, with a lying Content-Length, or not at all.
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import express from 'express';

export interface CreatedMessage {
  sid: string;
  to: string;
  from?: string;
  messagingServiceSid?: string;
  body?: string;
  mediaUrl: string[];
  statusCallback?: string;
  /** When the fake created it (Twilio's `date_created`). */
  createdAt: Date;
}

export interface Held {
  arrived: Promise<void>;
  release(): void;
  /** Resolves once the held request's connection closed before it was answered (the client went away). */
  dropped: Promise<void>;
}

interface Hold {
  match: (body: string) => boolean;
  accepted: boolean;
  arrive: () => void;
  released: Promise<void>;
  drop: () => void;
}

export interface Failure {
  status: number;
  code: number;
  /** Sent as the Retry-After header. */
  retryAfter?: string;
}

export type MediaBehaviour =
  | { type: 'bytes'; data: Buffer; contentType: string }
  | { type: 'forever' }
  | { type: 'declared-huge' }
  | { type: 'stall' }
  /** Answers with the bytes once `open` resolves (a slow CDN). */
  | { type: 'gate'; data: Buffer; contentType: string; open: Promise<void> }
  /** Answers 302 to `location`, as Twilio does to send a download to its CDN. */
  | { type: 'redirect'; location: string };

export interface ListedMessage {
  sid: string;
  from: string;
  to: string;
  body: string;
  direction: 'inbound' | 'outbound-api';
  dateSent: Date;
  media?: { sid: string; contentType: string }[];
  /** Set by Twilio on a message to a number of a Messaging Service. */
  messagingServiceSid?: string;
}

export const ACCOUNT = `AC${'a'.repeat(32)}`;
export const TOKEN = 'test-auth-token-0123456789abcdef';

/**
 * The `twilio` config section of a relay that takes webhooks on 127.0.0.1:`port` (0: any free port)
 * and replies through `fake`; `over` replaces single keys (e.g. `allowFrom`).
 */
export function fakeTwilioSection(
  fake: { url: string },
  port = 0,
  over: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    enabled: true,
    accountSid: ACCOUNT,
    authToken: TOKEN,
    from: '+15550000000',
    allowFrom: ['+15551234567'],
    apiBaseUrl: fake.url,
    webhook: { host: '127.0.0.1', port },
    ...over,
  };
}

export const sid = (prefix = 'SM') => `${prefix}${randomBytes(16).toString('hex')}`;

export interface FakeTwilio {
  url: string;
  /** Successful creates, in order. */
  created: CreatedMessage[];
  /** Every create attempt (successful or failed), in order. */
  attempts: { body?: string; to: string }[];
  /** Outcomes for the next create attempts, first in first out; `null` lets one succeed. */
  failNext(...failures: (Failure | null)[]): void;
  /** Forgets the failures still queued: every create succeeds from now on. */
  clearFailures(): void;
  /** An outage: every create answers `failure` until called again with `undefined`. */
  outage(failure: Failure | undefined): void;
  /**
   * Holds the next create whose body `match`es, as a request in flight: `arrived` resolves when it
   * comes; it is recorded and answered once `release()` is called, or dropped unrecorded if the
   * client goes away first (a sender killed mid-send). With `accepted`, it is recorded at once and
   * only the answer is held (the provider took it; the sender never heard).
   */
  hold(match: (body: string) => boolean, opts?: { accepted?: boolean }): Held;
  /**
   * Client connections open right now. A sender killed with SIGKILL is gone for the server only
   * once this reaches 0: until then a request it wrote may still be read and recorded.
   */
  openConnections(): number;
  inbox: ListedMessage[];
  media: Map<string, MediaBehaviour>;
  /** Media requests, with whether they carried the right Basic credentials. */
  mediaRequests: { path: string; authorized: boolean }[];
  /** Resolves when a streaming media response was torn down by the client. */
  mediaClosed: Promise<void>;
  mediaUrl(messageSid: string, mediaSid: string): string;
  close(): Promise<void>;
}

export async function startFakeTwilio(): Promise<FakeTwilio> {
  const app = express();
  app.use(express.urlencoded({ extended: false }));
  const created: CreatedMessage[] = [];
  const attempts: { body?: string; to: string }[] = [];
  const failures: (Failure | null)[] = [];
  let outage: Failure | undefined;
  const holds: Hold[] = [];
  const inbox: ListedMessage[] = [];
  const media = new Map<string, MediaBehaviour>();
  const mediaRequests: { path: string; authorized: boolean }[] = [];
  let closedResolve: () => void = () => {};
  const mediaClosed = new Promise<void>((r) => {
    closedResolve = r;
  });
  const expectedAuth = `Basic ${Buffer.from(`${ACCOUNT}:${TOKEN}`).toString('base64')}`;
  const base = `/2010-04-01/Accounts/${ACCOUNT}`;

  app.post(`${base}/Messages.json`, async (req, res) => {
    if (req.get('authorization') !== expectedAuth) {
      res.status(401).json({ code: 20003, message: 'Authenticate', status: 401 });
      return;
    }
    const b = req.body as Record<string, string | string[]>;
    attempts.push({ body: b.Body as string | undefined, to: b.To as string });
    const at = holds.findIndex((h) => h.match(String(b.Body ?? '')));
    const held = at >= 0 ? (holds.splice(at, 1)[0] as Hold) : undefined;
    // Nothing was answered yet, so a close means the client went away mid-request.
    const waitForRelease = async (h: Hold) => {
      h.arrive();
      const gone = new Promise<boolean>((r) =>
        res.once('close', () => {
          if (!res.writableEnded) h.drop();
          r(true);
        }),
      );
      return Promise.race([h.released.then(() => false), gone]);
    };
    if (held && !held.accepted && (await waitForRelease(held))) return;
    const failure = outage ?? failures.shift();
    if (failure) {
      if (failure.retryAfter !== undefined) res.set('Retry-After', failure.retryAfter);
      res
        .status(failure.status)
        .json({ code: failure.code, message: `fake failure ${failure.code}`, status: failure.status });
      return;
    }
    const m: CreatedMessage = {
      sid: sid(),
      to: b.To as string,
      from: b.From as string | undefined,
      messagingServiceSid: b.MessagingServiceSid as string | undefined,
      body: b.Body as string | undefined,
      mediaUrl: b.MediaUrl === undefined ? [] : ([] as string[]).concat(b.MediaUrl),
      statusCallback: b.StatusCallback as string | undefined,
      createdAt: new Date(),
    };
    created.push(m);
    if (held?.accepted && (await waitForRelease(held))) return;
    res
      .status(201)
      .json({ sid: m.sid, status: 'queued', to: m.to, from: m.from, body: m.body, account_sid: ACCOUNT });
  });

  // Twilio's list: newest first, both directions (inbound from `inbox`, ours from `created`),
  // filtered by `To` and `From` when given, as the relay's poll mode and resend check ask for them.
  app.get(`${base}/Messages.json`, (req, res) => {
    const q = req.query as Record<string, string | undefined>;
    const listed = [
      ...inbox.map((m) => ({
        sid: m.sid,
        from: m.from,
        to: m.to,
        body: m.body,
        direction: m.direction,
        num_media: String(m.media?.length ?? 0),
        messaging_service_sid: m.messagingServiceSid ?? null,
        at: m.dateSent,
        status: 'received',
      })),
      ...created.map((m) => ({
        sid: m.sid,
        from: m.from ?? null,
        to: m.to,
        body: m.body ?? '',
        direction: 'outbound-api',
        num_media: String(m.mediaUrl.length),
        messaging_service_sid: m.messagingServiceSid ?? null,
        at: m.createdAt,
        status: 'queued',
      })),
    ]
      .filter((m) => (!q.To || m.to === q.To) && (!q.From || m.from === q.From))
      .sort((a, b) => b.at.getTime() - a.at.getTime())
      .slice(0, Number(q.PageSize ?? 50));
    const messages = listed.map(({ at, ...m }) => ({
      ...m,
      account_sid: ACCOUNT,
      date_sent: at.toUTCString(),
      date_created: at.toUTCString(),
    }));
    res.json({ messages, next_page_uri: null, page: 0, page_size: 50, uri: `${base}/Messages.json` });
  });

  app.get(`${base}/Messages/:msid/Media.json`, (req, res) => {
    const m = inbox.find((x) => x.sid === req.params.msid);
    const media_list = (m?.media ?? []).map((x) => ({
      sid: x.sid,
      content_type: x.contentType,
      parent_sid: m?.sid,
      uri: `${base}/Messages/${m?.sid}/Media/${x.sid}.json`,
    }));
    res.json({ media_list, next_page_uri: null, page: 0, page_size: 50, uri: req.path });
  });

  app.get(`${base}/Messages/:msid/Media/:mediaSid`, (req, res) => {
    const authorized = req.get('authorization') === expectedAuth;
    mediaRequests.push({ path: req.path, authorized });
    if (!authorized) {
      res.status(401).end();
      return;
    }
    const b = media.get(req.params.mediaSid);
    if (!b) {
      res.status(404).end();
      return;
    }
    res.on('close', () => closedResolve());
    switch (b.type) {
      case 'bytes':
        res.type(b.contentType).send(b.data);
        return;
      case 'forever': {
        // No Content-Length, chunked, never ends: only a cap by bytes read stops it.
        res.type('image/jpeg');
        const chunk = Buffer.alloc(64 * 1024, 1);
        const pump = () => {
          while (!res.destroyed && res.write(chunk)) {}
          if (!res.destroyed) res.once('drain', pump);
        };
        pump();
        return;
      }
      case 'declared-huge':
        res.writeHead(200, {
          'content-type': 'video/mp4',
          'content-length': String(10 * 1024 * 1024 * 1024),
        });
        res.write(Buffer.alloc(1024));
        return;
      case 'stall':
        res.writeHead(200, { 'content-type': 'image/png' });
        res.write(Buffer.alloc(10));
        return;
      case 'gate':
        void b.open.then(() => res.type(b.contentType).send(b.data));
        return;
      case 'redirect':
        res.redirect(302, b.location);
        return;
    }
  });

  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    created,
    attempts,
    failNext: (...f) => void failures.push(...f),
    clearFailures: () => void failures.splice(0),
    outage: (f) => {
      outage = f;
    },
    openConnections: () => sockets.size,
    hold: (match, opts = {}) => {
      let arrive!: () => void;
      let release!: () => void;
      const arrived = new Promise<void>((r) => {
        arrive = r;
      });
      const released = new Promise<void>((r) => {
        release = r;
      });
      let drop!: () => void;
      const dropped = new Promise<void>((r) => {
        drop = r;
      });
      holds.push({ match, accepted: opts.accepted ?? false, arrive, released, drop });
      return { arrived, release, dropped };
    },
    inbox,
    media,
    mediaRequests,
    mediaClosed,
    mediaUrl: (messageSid, mediaSid) => `${url}${base}/Messages/${messageSid}/Media/${mediaSid}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

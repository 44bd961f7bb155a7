// A fake Slack on 127.0.0.1: the far edge of the Slack channel's tests. The Web API over HTTP (reached
// through the client's `slackApiUrl`), the methods the channel uses, the file upload URL of
// files.uploadV2, file downloads that need the bot token, scripted failures (429 with Retry-After,
// `not_in_channel`…), and a Socket Mode WebSocket server: apps.connections.open returns its ws:// URL,
// it says `hello`, pushes `events_api` envelopes shaped as Slack documents them
// (api.slack.com/apis/socket-mode) and records the acknowledgements.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';

export const BOT_TOKEN = 'xoxb-1111111111-2222222222-FakeBotTokenForTests';
export const APP_TOKEN = 'xapp-1-A0FAKE-3333333333-FakeAppTokenForTests';
export const SIGNING_SECRET = 'f00dfeedf00dfeedf00dfeedf00dfeed';
export const TEAM = 'T0TEAM001';
export const BOT_USER = 'U0BOT0001';
export const BOT_ID = 'B0BOT0001';

export interface Call {
  method: string;
  params: Record<string, unknown>;
  auth: string | undefined;
  at: number;
  /** What the fake answered (a post's `ts` is the message's id). */
  answer?: Record<string, unknown>;
}

interface Scripted {
  /** Never answered: a Slack that takes the request and says nothing. */
  hang?: boolean;
  status?: number;
  headers?: Record<string, string>;
  body: Record<string, unknown>;
}

export interface FakeSlack {
  url: string;
  apiUrl: string;
  calls: Call[];
  callsOf(method: string): Call[];
  /** Bytes posted to the upload URL of files.uploadV2, by file id. */
  uploads: Map<string, Buffer>;
  /** The next call of `method` answers this (one per call queued). */
  failNext(method: string, s: Scripted): void;
  /** A file served at `<url>/files-pri/<TEAM>-<id>/download/<name>` to the bot token only. */
  addFile(id: string, name: string, bytes: Buffer): string;
  downloads: number;
  /** Sends an envelope to every connected socket; resolves its envelope id. */
  push(payload: Record<string, unknown>, opts?: { envelopeId?: string; retryAttempt?: number }): string;
  acks: string[];
  sockets(): number;
  /** The next `n` Socket Mode links open but never say `hello`. */
  silentLinks(n: number): void;
  /** Closes every Socket Mode link from Slack's side (a recycled or dropped link). */
  dropSockets(): void;
  waitSocket(ms?: number): Promise<void>;
  close(): Promise<void>;
}

async function readAll(req: IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of req) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

function parseParams(req: IncomingMessage, body: Buffer): Record<string, unknown> {
  const type = req.headers['content-type'] ?? '';
  const text = body.toString('utf8');
  if (type.startsWith('application/json')) return JSON.parse(text || '{}') as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of new URLSearchParams(text)) out[k] = v;
  return out;
}

let seq = 0;
const ts = () => `${Math.floor(Date.now() / 1000)}.${String(++seq).padStart(6, '0')}`;

export async function startFakeSlack(): Promise<FakeSlack> {
  const calls: Call[] = [];
  const scripted = new Map<string, Scripted[]>();
  const uploads = new Map<string, Buffer>();
  const files = new Map<string, Buffer>();
  const acks: string[] = [];
  const sockets = new Set<WebSocket>();
  let downloads = 0;
  let silent = 0;
  let base = '';

  const answer = (method: string, p: Record<string, unknown>): Scripted => {
    switch (method) {
      case 'auth.test':
        return {
          body: {
            ok: true,
            url: 'https://fake.slack.com/',
            team: 'Fake',
            user: 'agentbot',
            team_id: TEAM,
            user_id: BOT_USER,
            bot_id: BOT_ID,
          },
        };
      case 'apps.connections.open':
        return {
          body: {
            ok: true,
            url: `${base.replace('http', 'ws')}/link/?ticket=${randomBytes(4).toString('hex')}`,
          },
        };
      case 'chat.postMessage':
        return { body: { ok: true, channel: p.channel, ts: ts(), message: { text: p.text } } };
      case 'chat.update':
        return { body: { ok: true, channel: p.channel, ts: p.ts, text: p.text } };
      case 'chat.delete':
        return { body: { ok: true, channel: p.channel, ts: p.ts } };
      case 'files.getUploadURLExternal': {
        const id = `F${randomBytes(4).toString('hex').toUpperCase()}`;
        return { body: { ok: true, upload_url: `${base}/upload/${id}`, file_id: id } };
      }
      case 'files.completeUploadExternal': {
        const list = JSON.parse(String(p.files ?? '[]')) as { id: string; title?: string }[];
        return { body: { ok: true, files: list.map((f) => ({ id: f.id, title: f.title })) } };
      }
      default:
        return { body: { ok: false, error: 'unknown_method' } };
    }
  };

  const server: Server = createServer((req, res) => {
    void (async () => {
      const path = (req.url ?? '').split('?')[0] ?? '';
      const body = await readAll(req);
      if (path.startsWith('/upload/')) {
        // The client posts the bytes as one multipart field, as to Slack's real upload URL.
        const type = req.headers['content-type'] ?? '';
        let bytes = body;
        if (type.startsWith('multipart/form-data')) {
          const form = await new Request('http://x/', {
            method: 'POST',
            headers: { 'content-type': type },
            body,
          }).formData();
          const f = [...form.values()].find((v) => typeof v !== 'string');
          if (f && typeof f !== 'string') bytes = Buffer.from(await f.arrayBuffer());
        }
        uploads.set(path.slice('/upload/'.length), bytes);
        res.writeHead(200, { 'content-type': 'text/plain' }).end('OK');
        return;
      }
      if (path.startsWith('/files-pri/')) {
        const f = files.get(path);
        if (req.headers.authorization !== `Bearer ${BOT_TOKEN}` || !f) {
          res.writeHead(f ? 200 : 404, { 'content-type': 'text/html' }).end('<html>sign in</html>');
          return;
        }
        downloads++;
        res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(f);
        return;
      }
      const m = /^\/api\/([\w.]+)$/.exec(path);
      if (!m) {
        res.writeHead(404).end();
        return;
      }
      const method = m[1]!;
      const params = parseParams(req, body);
      const call: Call = { method, params, auth: req.headers.authorization, at: Date.now() };
      calls.push(call);
      const s = scripted.get(method)?.shift() ?? answer(method, params);
      call.answer = s.body;
      if (s.hang) return;
      const wantApp = method === 'apps.connections.open';
      const token = wantApp ? APP_TOKEN : BOT_TOKEN;
      const authorized = req.headers.authorization === `Bearer ${token}`;
      const out = authorized ? s : { body: { ok: false, error: 'invalid_auth' } };
      res
        .writeHead(out.status ?? 200, { 'content-type': 'application/json', ...out.headers })
        .end(JSON.stringify(out.body));
    })();
  });
  const wss = new WebSocketServer({ server });
  wss.on('connection', (ws) => {
    sockets.add(ws);
    ws.on('close', () => sockets.delete(ws));
    ws.on('message', (data) => {
      const msg = JSON.parse(String(data)) as { envelope_id?: string };
      if (msg.envelope_id) acks.push(msg.envelope_id);
    });
    if (silent > 0) {
      silent--;
      return;
    }
    ws.send(
      JSON.stringify({
        type: 'hello',
        num_connections: 1,
        debug_info: { host: 'fake' },
        connection_info: { app_id: 'A0FAKE' },
      }),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: base,
    apiUrl: `${base}/api/`,
    calls,
    callsOf: (method) => calls.filter((c) => c.method === method),
    uploads,
    failNext(method, s) {
      const q = scripted.get(method) ?? [];
      q.push(s);
      scripted.set(method, q);
    },
    addFile(id, name, bytes) {
      const path = `/files-pri/${TEAM}-${id}/download/${name}`;
      files.set(path, bytes);
      return `${base}${path}`;
    },
    get downloads() {
      return downloads;
    },
    push(payload, opts = {}) {
      const envelopeId = opts.envelopeId ?? randomBytes(8).toString('hex');
      const frame = JSON.stringify({
        envelope_id: envelopeId,
        payload,
        type: 'events_api',
        accepts_response_payload: false,
        retry_attempt: opts.retryAttempt ?? 0,
        retry_reason: opts.retryAttempt ? 'timeout' : '',
      });
      for (const ws of sockets) ws.send(frame);
      return envelopeId;
    },
    acks,
    sockets: () => sockets.size,
    silentLinks(n) {
      silent = n;
    },
    dropSockets() {
      for (const ws of sockets) ws.terminate();
    },
    async waitSocket(ms = 30_000) {
      const end = Date.now() + ms;
      while (sockets.size === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
      if (sockets.size === 0) throw new Error('no Socket Mode connection');
    },
    async close() {
      for (const ws of sockets) ws.terminate();
      await new Promise<void>((r) => wss.close(() => r()));
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** An event_callback payload around a `message` event, as the Events API documents it. */
export function messageEvent(
  e: {
    channel: string;
    user: string;
    text: string;
    ts?: string;
    thread_ts?: string;
    channel_type?: string;
    files?: unknown[];
    subtype?: string;
    bot_id?: string;
  },
  opts: { eventId?: string; team?: string } = {},
): Record<string, unknown> {
  const t = e.ts ?? ts();
  return {
    token: 'verification-token-unused',
    team_id: opts.team ?? TEAM,
    api_app_id: 'A0FAKE',
    event: {
      type: 'message',
      client_msg_id: `c-${opts.eventId ?? t}`,
      team: opts.team ?? TEAM,
      event_ts: t,
      channel_type: e.channel_type ?? (e.channel.startsWith('D') ? 'im' : 'channel'),
      ...e,
      ts: t,
    },
    type: 'event_callback',
    event_id: opts.eventId ?? `Ev${randomBytes(5).toString('hex').toUpperCase()}`,
    event_time: Math.floor(Date.now() / 1000),
    authorizations: [{ team_id: opts.team ?? TEAM, user_id: BOT_USER, is_bot: true }],
  };
}

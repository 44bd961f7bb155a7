// A fake Discord on 127.0.0.1: the far edge of the Discord channel's tests. REST (reached through the
// REST client's `api` option: `discord.apiRoot`) for the routes the channel uses, JSON and multipart,
// with scripted failures (a 429 with Discord's rate-limit headers, a 403 Missing Access), CDN-style
// attachment downloads, and a gateway WebSocket server that GET /gateway/bot names: HELLO, IDENTIFY →
// READY, heartbeats, MESSAGE_CREATE dispatches with sequence numbers, RESUME → replay + RESUMED (or
// INVALID_SESSION for a session it does not know), and a dropped connection on demand. Payload shapes
// follow Discord's documented ones (discord.com/developers/docs: Gateway Events, Message object).
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';

export const TOKEN = 'MTIzNDU2Nzg5MDEyMzQ1Njc4.GaBcDe.fake_token_for_tests_only_0123456789abcd';
export const BOT_ID = '111111111111111111';
export const APP_ID = '111111111111111111';
export const BOT = {
  id: BOT_ID,
  username: 'agent_bot',
  discriminator: '0',
  global_name: null,
  avatar: null,
  bot: true,
};
export const USER_ID = '222222222222222222';
export const STRANGER_ID = '333333333333333333';
export const GUILD_ID = '444444444444444444';
export const CHANNEL_ID = '555555555555555555';
export const DM_CHANNEL_ID = '666666666666666666';

export interface Call {
  method: string;
  /** The path under /api/v10, e.g. `/channels/555…/messages`. */
  route: string;
  body: Record<string, unknown>;
  files: { name: string; bytes: Buffer; type: string }[];
  headers: IncomingMessage['headers'];
  /** The status the fake answered with. */
  status: number;
  /** The body it answered with (a post's `id` is the message's id). */
  answer?: unknown;
}

type Scripted = { status: number; body: unknown; headers?: Record<string, string> };

interface Session {
  id: string;
  seq: number;
  log: { s: number; t: string; d: unknown }[];
}

export interface FakeDiscord {
  /** The REST root for `discord.apiRoot`. */
  api: string;
  calls: Call[];
  /** Calls whose method and route match, e.g. ('POST', /\/messages$/). */
  callsOf(method: string, route: RegExp): Call[];
  /** Sends a MESSAGE_CREATE (sequence assigned); kept for a replay while no socket is live. */
  dispatch(t: string, d: unknown): number;
  /** The next calls matching route fail like this, in order. */
  failNext(method: string, route: RegExp, ...answers: Scripted[]): void;
  /** Serves `bytes` at <origin>/attachments/<name>; returns its address. */
  addAttachment(name: string, bytes: Buffer): string;
  /** Ends the live gateway socket without a close frame (a dropped connection). */
  drop(): void;
  /** Attachment downloads served, by name. */
  downloads: string[];
  /** Channel ids GET /channels/:id answers as threads (type 11), with their parent. */
  threads: Map<string, string>;
  identifies: number;
  resumes: { sessionId: string; seq: number }[];
  /** Intents of the last IDENTIFY. */
  intents: number | undefined;
  /** True while a socket is identified or resumed. */
  live(): boolean;
  /** On RESUME, replay from this sequence instead of the one the client sent (Discord delivering again). */
  replayFrom: number | undefined;
  /** Close every IDENTIFY with this code (4014: the Message Content intent is not enabled in the portal). */
  refuseIdentify: number | undefined;
  /** REST requests whose `METHOD /path` matches are never answered (an API that hangs). */
  hold: RegExp[];
  /** Send no HELLO on a new socket (a gateway that accepts the connection and says nothing). */
  holdHello: boolean;
  /** Leave every IDENTIFY unanswered (a gateway that never sends READY). */
  holdIdentify: boolean;
  /** IDENTIFY payloads received, answered or not. */
  identifyTries: number;
  /** Gateway sockets opened. */
  connections: number;
  /** Forget every session: a RESUME gets INVALID_SESSION and the client identifies again. */
  forgetSessions(): void;
  close(): Promise<void>;
}

async function readAll(req: IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of req) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

async function parseBody(req: IncomingMessage): Promise<Pick<Call, 'body' | 'files'>> {
  const raw = await readAll(req);
  const type = req.headers['content-type'] ?? '';
  if (type.startsWith('multipart/form-data')) {
    const form = await new Request('http://x/', {
      method: 'POST',
      headers: { 'content-type': type },
      body: raw,
    }).formData();
    let body: Record<string, unknown> = {};
    const files: Call['files'] = [];
    for (const [k, v] of form.entries()) {
      if (typeof v === 'string') {
        if (k === 'payload_json') body = JSON.parse(v) as Record<string, unknown>;
      } else files.push({ name: v.name, bytes: Buffer.from(await v.arrayBuffer()), type: v.type });
    }
    return { body, files };
  }
  return { body: raw.length ? (JSON.parse(raw.toString('utf8')) as Record<string, unknown>) : {}, files: [] };
}

let snowflake = 900000000000000000n;
export const nextId = (): string => String(++snowflake);

/** A message from the user with one file, which `fake` serves as Discord's CDN would. */
export function fileMessage(
  fake: Pick<FakeDiscord, 'addAttachment'>,
  o: { content: string; name: string; bytes: Buffer; type: string },
): Record<string, unknown> {
  const url = fake.addAttachment(o.name, o.bytes);
  return message({
    content: o.content,
    attachments: [{ url, filename: o.name, size: o.bytes.length, content_type: o.type }],
  });
}

/** A MESSAGE_CREATE payload as Discord sends it (trimmed to the fields a bot reads). */
export function message(o: {
  id?: string;
  author?: string;
  content: string;
  channel?: string;
  guild?: string;
  bot?: boolean;
  replyToBot?: boolean;
  attachments?: { url: string; filename: string; size: number; content_type: string }[];
}): Record<string, unknown> {
  const id = o.id ?? nextId();
  const author = {
    id: o.author ?? USER_ID,
    username: 'alice',
    discriminator: '0',
    global_name: 'Alice',
    avatar: null,
    ...(o.bot && { bot: true }),
  };
  return {
    id,
    type: o.replyToBot ? 19 : 0,
    channel_id: o.channel ?? (o.guild ? CHANNEL_ID : DM_CHANNEL_ID),
    ...(o.guild && { guild_id: o.guild, member: { roles: [], joined_at: '2026-01-01T00:00:00.000Z' } }),
    author,
    content: o.content,
    timestamp: new Date().toISOString(),
    edited_timestamp: null,
    tts: false,
    mention_everyone: false,
    mentions: o.content.includes(`<@${BOT_ID}>`) ? [BOT] : [],
    mention_roles: [],
    attachments: (o.attachments ?? []).map((a) => ({ id: nextId(), proxy_url: a.url, ...a })),
    embeds: [],
    pinned: false,
    flags: 0,
    ...(o.replyToBot && {
      message_reference: {
        type: 0,
        message_id: '900000000000000001',
        channel_id: CHANNEL_ID,
        guild_id: o.guild,
      },
      referenced_message: { id: '900000000000000001', author: BOT, content: 'earlier answer', type: 0 },
    }),
  };
}

/** An INTERACTION_CREATE for a slash command, as Discord sends it (a DM: `user`; a server: `member`). */
export function slash(
  name: string,
  text?: string,
  o: { guild?: string; channel?: string } = {},
): Record<string, unknown> {
  const user = { id: USER_ID, username: 'alice', discriminator: '0', global_name: 'Alice', avatar: null };
  return {
    id: nextId(),
    application_id: APP_ID,
    type: 2,
    token: `itoken-${nextId()}`,
    version: 1,
    channel_id: o.channel ?? (o.guild ? CHANNEL_ID : DM_CHANNEL_ID),
    channel: { id: o.channel ?? (o.guild ? CHANNEL_ID : DM_CHANNEL_ID), type: o.guild ? 0 : 1 },
    ...(o.guild ? { guild_id: o.guild, member: { user, roles: [] } } : { user }),
    data: { id: nextId(), name, type: 1, ...(text && { options: [{ name: 'text', type: 3, value: text }] }) },
  };
}

export async function startFakeDiscord(): Promise<FakeDiscord> {
  const calls: Call[] = [];
  const failures: { method: string; route: RegExp; answer: Scripted }[] = [];
  const attachments = new Map<string, Buffer>();
  const sessions = new Map<string, Session>();
  let current: { ws: WebSocket; session?: Session } | undefined;
  const server = createServer((req, res) => void route(req, res));
  const wss = new WebSocketServer({ server });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const wsUrl = origin.replace('http:', 'ws:');

  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    // The call this response answers (another may have come in meanwhile).
    const call = (res as ServerResponse & { call?: Call }).call;
    if (call) {
      call.status = status;
      call.answer = body;
    }
    if (status === 204) res.writeHead(204, headers).end();
    else res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
  };

  async function route(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', origin);
    if (req.method === 'GET' && url.pathname.startsWith('/attachments/')) {
      const name = url.pathname.slice('/attachments/'.length);
      const bytes = attachments.get(name);
      if (!bytes) return json(res, 404, { message: 'Not Found' });
      fake.downloads.push(name);
      res
        .writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': bytes.length })
        .end(bytes);
      return;
    }
    const path = decodeURIComponent(url.pathname).replace(/^\/api\/v10/, '');
    const parsed = await parseBody(req);
    const call: Call = {
      method: req.method ?? 'GET',
      route: path,
      headers: req.headers,
      status: 0,
      ...parsed,
    };
    calls.push(call);
    (res as ServerResponse & { call?: Call }).call = call;
    if (req.headers.authorization !== `Bot ${TOKEN}`)
      return json(res, 401, { message: '401: Unauthorized', code: 0 });
    if (fake.hold.some((re) => re.test(`${call.method} ${path}`))) return;
    const i = failures.findIndex((f) => f.method === call.method && f.route.test(path));
    if (i >= 0) {
      const [f] = failures.splice(i, 1);
      return json(res, f!.answer.status, f!.answer.body, f!.answer.headers);
    }
    const m = `${call.method} ${path}`;
    if (m === 'GET /gateway/bot')
      return json(res, 200, {
        url: wsUrl,
        shards: 1,
        session_start_limit: { total: 1000, remaining: 999, reset_after: 14_400_000, max_concurrency: 1 },
      });
    if (m === 'GET /users/@me') return json(res, 200, BOT);
    if (m === 'GET /applications/@me') return json(res, 200, { id: APP_ID, name: 'agent', flags: 1 << 19 });
    if (m === 'POST /users/@me/channels')
      return json(res, 200, { id: DM_CHANNEL_ID, type: 1, recipients: [{ id: call.body.recipient_id }] });
    let r = /^\/channels\/(\d+)$/.exec(path);
    if (r && call.method === 'GET') {
      const parent = fake.threads.get(r[1]!);
      return json(
        res,
        200,
        parent
          ? { id: r[1], type: 11, guild_id: GUILD_ID, parent_id: parent, name: 'a thread' }
          : { id: r[1], type: 0, guild_id: GUILD_ID, name: 'general' },
      );
    }
    r = /^\/channels\/(\d+)\/typing$/.exec(path);
    if (r && call.method === 'POST') return json(res, 204, undefined);
    r = /^\/channels\/(\d+)\/messages$/.exec(path);
    if (r && call.method === 'POST') {
      return json(res, 200, {
        id: nextId(),
        channel_id: r[1],
        author: BOT,
        content: call.body.content ?? '',
        attachments: call.files.map((f) => ({ id: nextId(), filename: f.name, size: f.bytes.length })),
        timestamp: new Date().toISOString(),
        type: 0,
      });
    }
    r = /^\/channels\/(\d+)\/messages\/(\d+)$/.exec(path);
    if (r && call.method === 'PATCH')
      return json(res, 200, {
        id: r[2],
        channel_id: r[1],
        author: BOT,
        content: call.body.content ?? '',
        attachments: [],
        timestamp: new Date().toISOString(),
        edited_timestamp: new Date().toISOString(),
        type: 0,
      });
    if (r && call.method === 'DELETE') return json(res, 204, undefined);
    if (/^\/applications\/\d+\/commands$/.test(path) && call.method === 'PUT')
      return json(res, 200, call.body);
    if (/^\/interactions\/\d+\/[^/]+\/callback$/.test(path)) return json(res, 204, undefined);
    return json(res, 404, { message: `404: no route ${m}`, code: 0 });
  }

  const send = (ws: WebSocket, p: unknown) => ws.send(JSON.stringify(p));
  const emit = (session: Session, t: string, d: unknown): number => {
    const s = ++session.seq;
    session.log.push({ s, t, d });
    if (current?.session === session && current.ws.readyState === current.ws.OPEN)
      send(current.ws, { op: 0, t, s, d });
    return s;
  };

  const fake: FakeDiscord = {
    api: `${origin}/api`,
    calls,
    callsOf: (method, re) => calls.filter((c) => c.method === method && re.test(c.route)),
    dispatch(t, d) {
      const session = current?.session ?? [...sessions.values()].at(-1);
      if (!session) throw new Error('no gateway session yet');
      return emit(session, t, d);
    },
    failNext(method, re, ...answers) {
      for (const answer of answers) failures.push({ method, route: re, answer });
    },
    addAttachment(name, bytes) {
      attachments.set(name, bytes);
      return `${origin}/attachments/${name}`;
    },
    drop() {
      current?.ws.terminate();
      current = undefined;
    },
    downloads: [],
    threads: new Map(),
    identifies: 0,
    resumes: [],
    intents: undefined,
    live: () => current?.session !== undefined && current.ws.readyState === current.ws.OPEN,
    replayFrom: undefined,
    refuseIdentify: undefined,
    holdIdentify: false,
    holdHello: false,
    hold: [],
    identifyTries: 0,
    connections: 0,
    forgetSessions: () => sessions.clear(),
    async close() {
      for (const c of wss.clients) c.terminate();
      await new Promise<void>((r) => wss.close(() => r()));
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };

  wss.on('connection', (ws) => {
    fake.connections++;
    const conn: { ws: WebSocket; session?: Session } = { ws };
    if (!fake.holdHello) send(ws, { op: 10, d: { heartbeat_interval: 41_250 }, s: null, t: null });
    ws.on('message', (raw) => {
      const p = JSON.parse(String(raw)) as { op: number; d: Record<string, unknown> };
      if (p.op === 1) return send(ws, { op: 11, d: null, s: null, t: null });
      if (p.op === 2) {
        fake.identifyTries++;
        if (fake.holdIdentify) return;
        if (p.d.token !== TOKEN) return ws.close(4004, 'Authentication failed.');
        if (fake.refuseIdentify) return ws.close(fake.refuseIdentify, 'Disallowed intent(s).');
        fake.identifies++;
        fake.intents = Number(p.d.intents);
        const session: Session = { id: randomBytes(16).toString('hex'), seq: 0, log: [] };
        sessions.set(session.id, session);
        conn.session = session;
        current = conn;
        emit(session, 'READY', {
          v: 10,
          user: BOT,
          guilds: [],
          session_id: session.id,
          resume_gateway_url: wsUrl,
          shard: [0, 1],
          application: { id: APP_ID, flags: 1 << 19 },
        });
        return;
      }
      if (p.op === 6) {
        const session = sessions.get(String(p.d.session_id));
        fake.resumes.push({ sessionId: String(p.d.session_id), seq: Number(p.d.seq) });
        if (!session || p.d.token !== TOKEN) return send(ws, { op: 9, d: false, s: null, t: null });
        conn.session = session;
        current = conn;
        const from = fake.replayFrom ?? Number(p.d.seq);
        for (const e of session.log)
          if (e.s > from && e.t !== 'READY') send(ws, { op: 0, t: e.t, s: e.s, d: e.d });
        emit(session, 'RESUMED', null);
      }
    });
    ws.on('close', () => {
      if (current === conn) current = undefined;
    });
  });
  return fake;
}

// A fake Telegram Bot API server on 127.0.0.1: the far edge of the Telegram channel's tests, reached
// through grammY's `apiRoot`. It implements the methods the channel uses (JSON and multipart
// requests), long polling with offset and timeout, file downloads, and scripted failures.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const TOKEN = '123456789:AAFakeTokenForTestsOnly_abcdefghijkl';
export const BOT = { id: 999, is_bot: true, first_name: 'Agent', username: 'agent_bot' };

export interface Call {
  method: string;
  params: Record<string, unknown>;
  /** Uploaded files of a multipart call: field → {name, bytes}. */
  files: Record<string, { name: string; bytes: Buffer }>;
  /** The `result` the fake answered with, when the call succeeded (a send's `message_id`). */
  result?: unknown;
}

type Scripted = { error_code: number; description: string; parameters?: Record<string, unknown> };

export interface FakeBotApi {
  url: string;
  calls: Call[];
  callsOf(method: string): Call[];
  /** Queues an update for getUpdates (update_id assigned when absent). */
  push(update: Record<string, unknown>): number;
  /** The next call of `method` fails with this error (one per call queued); `after` calls succeed first. */
  failNext(method: string, err: Scripted, after?: number): void;
  /** A file getFile and the download path serve. */
  addFile(fileId: string, bytes: Buffer, filePath?: string): void;
  downloads: string[];
  /**
   * With `conflicts`: how many long polls were ended by another getUpdates while they waited (each
   * answered 409 Conflict, as Telegram answers a bot polled by two consumers).
   */
  conflicts(): number;
  close(): Promise<void>;
}

async function readAll(req: IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of req) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

async function parseBody(req: IncomingMessage): Promise<Pick<Call, 'params' | 'files'>> {
  const body = await readAll(req);
  const type = req.headers['content-type'] ?? '';
  if (type.startsWith('multipart/form-data')) {
    const form = await new Request('http://x/', {
      method: 'POST',
      headers: { 'content-type': type },
      body,
    }).formData();
    const params: Record<string, unknown> = {};
    const files: Call['files'] = {};
    for (const [k, v] of form.entries()) {
      if (typeof v === 'string') params[k] = v.startsWith('{') || v.startsWith('[') ? JSON.parse(v) : v;
      else files[k] = { name: v.name, bytes: Buffer.from(await v.arrayBuffer()) };
    }
    // grammY sends the file as `attach://<id>` in the field and the bytes under <id>.
    for (const [k, v] of Object.entries(params)) {
      const m = typeof v === 'string' ? /^attach:\/\/(.+)$/.exec(v) : null;
      if (m && files[m[1]!]) files[k] = files[m[1]!]!;
    }
    return { params, files };
  }
  return {
    params: body.length ? (JSON.parse(body.toString('utf8')) as Record<string, unknown>) : {},
    files: {},
  };
}

export async function startFakeBotApi(
  opts: { token?: string; conflicts?: boolean } = {},
): Promise<FakeBotApi> {
  const token = opts.token ?? TOKEN;
  /** Long polls waiting now: a new one ends them with 409 (`conflicts`). */
  const polls = new Set<() => void>();
  let conflicts = 0;
  const calls: Call[] = [];
  const updates: Record<string, unknown>[] = [];
  const waiters = new Set<() => void>();
  const failures = new Map<string, { err: Scripted; after: number }[]>();
  const files = new Map<string, { bytes: Buffer; path: string }>();
  const downloads: string[] = [];
  let nextUpdateId = 1000;
  let nextMessageId = 500;

  const reply = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };

  const result = (method: string, params: Record<string, unknown>): unknown => {
    switch (method) {
      case 'getMe':
        return BOT;
      case 'setMyCommands':
      case 'setWebhook':
      case 'deleteWebhook':
      case 'sendChatAction':
      case 'setMessageReaction':
      case 'deleteMessage':
      case 'answerCallbackQuery':
        return true;
      case 'editMessageText':
        return {
          message_id: Number(params.message_id),
          date: 1_700_000_000,
          edit_date: 1_700_000_001,
          chat: { id: Number(params.chat_id), type: 'private' },
          text: params.text,
        };
      case 'getFile': {
        const f = files.get(String(params.file_id));
        if (!f) throw { error_code: 400, description: 'Bad Request: invalid file_id' };
        return { file_id: params.file_id, file_unique_id: 'u', file_size: f.bytes.length, file_path: f.path };
      }
      default:
        if (method.startsWith('send')) {
          return {
            message_id: nextMessageId++,
            date: 1_700_000_000,
            chat: { id: Number(params.chat_id), type: 'private' },
          };
        }
        throw { error_code: 404, description: 'Not Found: method not found' };
    }
  };

  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const file = /^\/file\/bot([^/]+)\/(.+)$/.exec(url.pathname);
      if (file) {
        if (file[1] !== token)
          return reply(res, 401, { ok: false, error_code: 401, description: 'Unauthorized' });
        const path = decodeURIComponent(file[2]!);
        const f = [...files.values()].find((x) => x.path === path);
        downloads.push(path);
        if (!f) return reply(res, 404, { ok: false, error_code: 404, description: 'Not Found' });
        res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(f.bytes);
        return;
      }
      const m = /^\/bot([^/]+)\/(\w+)$/.exec(url.pathname);
      if (!m) return reply(res, 404, { ok: false, error_code: 404, description: 'Not Found' });
      if (m[1] !== token) return reply(res, 401, { ok: false, error_code: 401, description: 'Unauthorized' });
      const method = m[2]!;
      const { params, files: uploaded } = await parseBody(req);
      const call: Call = { method, params, files: uploaded };
      calls.push(call);
      const queued = failures.get(method);
      const head = queued?.[0];
      if (head && head.after > 0) head.after--;
      else if (head) {
        queued!.shift();
        return reply(res, head.err.error_code, { ok: false, ...head.err });
      }
      if (method === 'getUpdates') {
        const offset = Number(params.offset ?? 0);
        const timeoutMs = Number(params.timeout ?? 0) * 1000;
        const pending = () => updates.filter((u) => (u.update_id as number) >= offset);
        const deadline = Date.now() + timeoutMs;
        let ended = false;
        let wake: () => void = () => undefined;
        const end = () => {
          ended = true;
          wake();
        };
        if (opts.conflicts) {
          for (const other of [...polls]) other();
          polls.add(end);
          // A poller that went away (killed) no longer waits: a later poll is no conflict with it.
          res.on('close', () => polls.delete(end));
        }
        while (!pending().length && Date.now() < deadline && !res.destroyed && !ended) {
          await new Promise<void>((resolve) => {
            const t = setTimeout(resolve, Math.max(1, deadline - Date.now()));
            const done = () => {
              clearTimeout(t);
              resolve();
            };
            wake = done;
            waiters.add(done);
          });
        }
        polls.delete(end);
        if (ended) {
          conflicts++;
          return reply(res, 409, {
            ok: false,
            error_code: 409,
            description:
              'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running',
          });
        }
        return reply(res, 200, { ok: true, result: pending() });
      }
      try {
        call.result = result(method, params);
        return reply(res, 200, { ok: true, result: call.result });
      } catch (err) {
        const e = err as Scripted;
        return reply(res, e.error_code, { ok: false, ...e });
      }
    })();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    callsOf: (method) => calls.filter((c) => c.method === method),
    push(update) {
      const id = (update.update_id as number | undefined) ?? nextUpdateId;
      nextUpdateId = Math.max(nextUpdateId, id + 1);
      updates.push({ ...update, update_id: id });
      for (const w of [...waiters]) w();
      waiters.clear();
      return id;
    },
    failNext(method, err, after = 0) {
      const list = failures.get(method) ?? [];
      list.push({ err, after });
      failures.set(method, list);
    },
    addFile(fileId, bytes, filePath = `documents/${fileId}.bin`) {
      files.set(fileId, { bytes, path: filePath });
    },
    downloads,
    conflicts: () => conflicts,
    async close() {
      for (const w of [...waiters]) w();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** A private text message from `userId`, as an update without its id. */
export function dm(userId: number, text: string, messageId = 1, extra: Record<string, unknown> = {}) {
  return {
    message: {
      message_id: messageId,
      date: 1_700_000_000,
      chat: { id: userId, type: 'private', first_name: 'Ann' },
      from: { id: userId, is_bot: false, first_name: 'Ann' },
      text,
      ...extra,
    },
  };
}

/** A group message from `userId` in `groupId`. */
export function groupMsg(
  groupId: number,
  userId: number,
  text: string,
  messageId = 1,
  extra: Record<string, unknown> = {},
) {
  return {
    message: {
      message_id: messageId,
      date: 1_700_000_000,
      chat: { id: groupId, type: 'supergroup', title: 'Team' },
      from: { id: userId, is_bot: false, first_name: 'Bob' },
      text,
      ...extra,
    },
  };
}

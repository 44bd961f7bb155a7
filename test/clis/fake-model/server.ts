// A fake model server for the real agent CLIs: the Anthropic, OpenAI (Chat Completions and
// Responses) and Gemini APIs on 127.0.0.1, answering from per-test scenarios. One server serves a
// whole suite: a CLI given the base URL `http://127.0.0.1:PORT/s/<id>` is answered by scenario <id>
// (every CLI keeps the path prefix). Control routes, for tests:
//   PUT    /_control/scenarios/<id>        body: a Scenario (scenario.ts); 400 names a bad field
//   GET    /_control/requests?scenario=<id> the logged requests (log.ts), oldest first
//   DELETE /_control/requests
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { anthropicAnswer, anthropicError } from './anthropic.js';
import { geminiAnswer, geminiError, jsonModeReply } from './gemini.js';
import { type LoggedRequest, RequestLog } from './log.js';
import { chatAnswer, openaiError } from './openai-chat.js';
import { responsesAnswer } from './openai-responses.js';
import { type Answer, type Api, answerFor, type Scenario, scenarioSchema } from './scenario.js';
import { sendJson } from './sse.js';
import { offeredTools, toolResultSeen } from './tools.js';

export interface FakeModel {
  /** `http://127.0.0.1:PORT`. */
  url: string;
  /** The base URL a CLI is given for one scenario. */
  baseUrl: (scenario: string) => string;
  setScenario: (id: string, sc: Partial<Scenario>) => void;
  requests: (scenario?: string) => LoggedRequest[];
  close: () => Promise<void>;
}

type Route =
  | { type: 'model'; api: Api; model?: string; stream?: boolean }
  | { type: 'count'; api: Api }
  | { type: 'models' };

const GEMINI = /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent|countTokens)$/;

/** Pure: which API and call a method and path (without the scenario prefix) are. */
export function routeOf(method: string, path: string): Route | undefined {
  if (method === 'GET' && /^(\/v1|\/v1beta)?\/models(\/[^/]+)?$/.test(path)) return { type: 'models' };
  if (method !== 'POST') return undefined;
  if (path === '/v1/messages') return { type: 'model', api: 'anthropic' };
  if (path === '/v1/messages/count_tokens') return { type: 'count', api: 'anthropic' };
  if (path === '/v1/chat/completions') return { type: 'model', api: 'openai-chat' };
  if (path === '/v1/responses') return { type: 'model', api: 'openai-responses' };
  const g = GEMINI.exec(path);
  if (!g) return undefined;
  if (g[2] === 'countTokens') return { type: 'count', api: 'gemini' };
  return { type: 'model', api: 'gemini', model: g[1], stream: g[2] === 'streamGenerateContent' };
}

export async function startFakeModel(port = 0): Promise<FakeModel> {
  const scenarios = new Map<string, Scenario>([['default', scenarioSchema.parse({})]]);
  const log = new RequestLog();
  const sockets = new Set<Socket>();

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        handle(req, res, Buffer.concat(chunks).toString('utf8'));
      } catch (err) {
        if (!res.headersSent)
          sendJson(res, 500, { error: { message: `fake-model: ${(err as Error).message}` } });
        else res.destroy();
      }
    });
  });

  // Each branch returns the writer it ends in (nothing useful): one early return per route.
  function handle(req: IncomingMessage, res: ServerResponse, raw: string) {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const method = req.method ?? 'GET';
    let path = url.pathname.replace(/\/+$/, '') || '/';
    let scenario = 'default';
    const prefix = /^\/s\/([\w.-]+)(\/.*)?$/.exec(path);
    if (prefix) {
      scenario = prefix[1] ?? 'default';
      path = prefix[2] ?? '/';
    }
    let body: Record<string, unknown> = {};
    try {
      body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
    } catch {
      body = { unparsed: raw.slice(0, 10_000) };
    }
    if (path.startsWith('/_control/')) return control(method, path, url, body, res);

    const route = routeOf(method, path);
    const note = (answer: string, kind: LoggedRequest['kind'] = 'other', api?: Api) =>
      log.add({ scenario, kind, ...(api && { api }), method, path: url.pathname, answer, body });
    if (!route) {
      note('404');
      return sendJson(res, 404, { error: { message: `fake-model: no route ${method} ${path}` } });
    }
    if (route.type === 'models') {
      note('models');
      const ids = ['fake-model', 'claude-sonnet-4-5', 'gpt-5.5', 'gemini-2.5-flash', 'gemini-2.5-pro'];
      return sendJson(res, 200, {
        object: 'list',
        data: ids.map((id) => ({
          id,
          object: 'model',
          type: 'model',
          display_name: id,
          created: 1_700_000_000,
          owned_by: 'fake',
        })),
        models: ids.map((id) => ({
          name: `models/${id}`,
          displayName: id,
          supportedGenerationMethods: ['generateContent'],
        })),
      });
    }
    if (route.type === 'count') {
      note('count', 'other', route.api);
      return sendJson(res, 200, route.api === 'gemini' ? { totalTokens: 42 } : { input_tokens: 42 });
    }

    const json = route.api === 'gemini' ? jsonModeReply(body) : undefined;
    if (json !== undefined) {
      note('json-mode', 'model', route.api);
      return geminiAnswer(res, body, route.model ?? 'fake', route.stream === true, {
        type: 'text',
        text: json,
      });
    }
    const sc = scenarios.get(scenario) ?? scenarios.get('default') ?? scenarioSchema.parse({});
    let answer: Answer = answerFor(sc, toolResultSeen(route.api, body));
    if (answer.type === 'tool' && !offeredTools(route.api, body).includes(answer.call.name)) {
      // Say so in the reply: a test then fails on the text, naming the tools that were offered.
      const offered = offeredTools(route.api, body).join(', ') || 'none';
      answer = {
        type: 'text',
        text: `fake-model: the CLI did not offer the tool ${answer.call.name} (offered: ${offered})`,
      };
    }
    note(
      answer.type === 'tool'
        ? `tool ${answer.call.name}`
        : answer.type === 'error'
          ? `error ${answer.status}`
          : answer.type,
      'model',
      route.api,
    );
    switch (answer.type) {
      case 'hang':
        // Accept and never answer; close() ends the socket.
        req.socket.setTimeout(0);
        return;
      case 'error':
        if (route.api === 'anthropic') return anthropicError(res, answer.status);
        if (route.api === 'gemini') return geminiError(res, answer.status);
        return openaiError(res, answer.status);
      case 'text':
      case 'tool':
        if (route.api === 'anthropic') return anthropicAnswer(res, body, answer);
        if (route.api === 'gemini')
          return geminiAnswer(res, body, route.model ?? 'fake', route.stream === true, answer);
        if (route.api === 'openai-chat') return chatAnswer(res, body, answer);
        return responsesAnswer(res, body, answer);
    }
  }

  function control(method: string, path: string, url: URL, body: unknown, res: ServerResponse) {
    const m = /^\/_control\/scenarios\/([\w.-]+)$/.exec(path);
    if (m?.[1] && method === 'PUT') {
      const parsed = scenarioSchema.safeParse(body);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        return sendJson(res, 400, { error: `${issue?.path.join('.') || 'scenario'}: ${issue?.message}` });
      }
      scenarios.set(m[1], parsed.data);
      return sendJson(res, 200, { id: m[1], scenario: parsed.data });
    }
    if (path === '/_control/requests' && method === 'GET')
      return sendJson(res, 200, log.list(url.searchParams.get('scenario') ?? undefined));
    if (path === '/_control/requests' && method === 'DELETE') {
      log.clear();
      return sendJson(res, 200, { cleared: true });
    }
    sendJson(res, 404, { error: `fake-model: no control route ${method} ${path}` });
  }

  // codex tries the Responses API over a WebSocket first; a refusal makes it fall back to HTTP.
  server.on('upgrade', (_req, socket: Socket) => {
    socket.end('HTTP/1.1 426 Upgrade Required\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  // Loopback only, on purpose: the CLIs run in a namespace where nothing else exists anyway.
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const addr = server.address();
  const url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : port}`;
  return {
    url,
    baseUrl: (id) => `${url}/s/${id}`,
    setScenario: (id, sc) => scenarios.set(id, scenarioSchema.parse(sc)),
    requests: (scenario) => log.list(scenario),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Hanging requests and keep-alive connections would hold close() open forever.
        for (const s of sockets) s.destroy();
      }),
  };
}

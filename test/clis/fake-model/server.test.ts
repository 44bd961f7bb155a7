// The fake model server the real-CLI suite runs against (npm run test:clis), checked here in
// `npm test` with plain HTTP: each API's wire format for text, a tool call and an error, the
// scenarios, the request log and a hang that close() ends.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Api } from './scenario.js';
import { type FakeModel, routeOf, startFakeModel } from './server.js';
import { toolResults } from './tools.js';

let fake: FakeModel;
beforeAll(async () => {
  fake = await startFakeModel();
});
afterAll(() => fake.close());

async function put(id: string, sc: unknown): Promise<Response> {
  return fetch(`${fake.url}/_control/scenarios/${id}`, { method: 'PUT', body: JSON.stringify(sc) });
}

/** The events of an SSE body, as parsed JSON (`[DONE]` dropped). */
function events(text: string): Record<string, unknown>[] {
  return text
    .split(/\r?\n/)
    .filter((l) => l.startsWith('data: ') && l !== 'data: [DONE]')
    .map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>);
}

// Per API: the path, a first request offering one tool `Bash`, a second carrying its result, and
// how to read the streamed text and the tool call back out of the answer.
const APIS: Record<
  Api,
  {
    path: string;
    first: Record<string, unknown>;
    second: Record<string, unknown>;
    text: (ev: Record<string, unknown>[]) => string;
    tool: (ev: Record<string, unknown>[]) => { name: unknown; input: unknown };
  }
> = {
  anthropic: {
    path: '/v1/messages',
    first: {
      stream: true,
      tools: [{ name: 'Bash', input_schema: {} }],
      messages: [{ role: 'user', content: 'hi' }],
    },
    second: {
      stream: true,
      messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'ok' }] }],
    },
    text: (ev) => ev.map((e) => (e.delta as { text?: string } | undefined)?.text ?? '').join(''),
    tool: (ev) => {
      const block = ev.find((e) => e.type === 'content_block_start')?.content_block as { name: string };
      const json = ev
        .map((e) => (e.delta as { partial_json?: string } | undefined)?.partial_json ?? '')
        .join('');
      return { name: block.name, input: JSON.parse(json) };
    },
  },
  'openai-chat': {
    path: '/v1/chat/completions',
    first: {
      stream: true,
      tools: [{ type: 'function', function: { name: 'Bash' } }],
      messages: [{ role: 'user', content: 'hi' }],
    },
    second: {
      stream: true,
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'tool', content: 'ok' },
      ],
    },
    text: (ev) =>
      ev.map((e) => (e.choices as { delta: { content?: string } }[])[0]?.delta.content ?? '').join(''),
    tool: (ev) => {
      const calls = ev.flatMap(
        (e) =>
          (e.choices as { delta: { tool_calls?: { function: { name?: string; arguments: string } }[] } }[])[0]
            ?.delta.tool_calls ?? [],
      );
      return {
        name: calls[0]?.function.name,
        input: JSON.parse(calls.map((c) => c.function.arguments).join('')),
      };
    },
  },
  'openai-responses': {
    path: '/v1/responses',
    first: {
      stream: true,
      // A built-in tool (codex offers web search) has no name and is not callable.
      tools: [{ type: 'function', name: 'Bash' }, { type: 'web_search' }],
      input: [{ role: 'user', content: 'hi' }],
    },
    second: { stream: true, input: [{ type: 'function_call_output', call_id: 'c', output: 'ok' }] },
    text: (ev) =>
      ev
        .filter((e) => e.type === 'response.output_text.delta')
        .map((e) => e.delta)
        .join(''),
    tool: (ev) => {
      const item = ev.find((e) => e.type === 'response.output_item.done')?.item as {
        name: string;
        arguments: string;
      };
      return { name: item.name, input: JSON.parse(item.arguments) };
    },
  },
  gemini: {
    path: '/v1beta/models/gemini-2.5-flash:streamGenerateContent',
    first: {
      tools: [{ functionDeclarations: [{ name: 'Bash' }] }],
      contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
    },
    second: { contents: [{ role: 'user', parts: [{ functionResponse: { name: 'Bash', response: {} } }] }] },
    text: (ev) =>
      ev
        .map(
          (e) =>
            (e.candidates as { content: { parts: { text?: string }[] } }[])[0]?.content.parts[0]?.text ?? '',
        )
        .join(''),
    tool: (ev) => {
      type Candidates = { content: { parts: { functionCall: { name: string; args: unknown } }[] } }[];
      const call = ((ev[0]?.candidates ?? []) as Candidates)[0]?.content.parts[0]?.functionCall;
      return { name: call?.name, input: call?.args };
    },
  },
};

const post = (id: string, path: string, body: unknown) =>
  fetch(`${fake.baseUrl(id)}${path}`, { method: 'POST', body: JSON.stringify(body) });

describe.each(Object.entries(APIS))('%s', (api, a) => {
  it('streams the scenario reply, and logs the request under its scenario', async () => {
    const id = `${api}-ok`;
    expect((await put(id, { reply: 'Here you go.\nMEDIA: ./a.png — ünïcødé 🎉' })).status).toBe(200);
    const r = await post(id, a.path, a.first);
    expect(r.status).toBe(200);
    expect(a.text(events(await r.text()))).toBe('Here you go.\nMEDIA: ./a.png — ünïcødé 🎉');
    const log = fake.requests(id);
    expect(log).toMatchObject([{ scenario: id, kind: 'model', api, answer: 'text', body: a.first }]);
  });

  it('tool mode: calls the tool with the given input, then answers once its result is back', async () => {
    const id = `${api}-tool`;
    const tool = { name: 'Bash', input: { command: 'echo hi', description: 'say hi' } };
    expect((await put(id, { mode: 'tool', tool, reply: 'Ran it.' })).status).toBe(200);
    expect(a.tool(events(await (await post(id, a.path, a.first)).text()))).toEqual(tool);
    expect(a.text(events(await (await post(id, a.path, a.second)).text()))).toBe('Ran it.');
    expect(fake.requests(id).map((r) => r.answer)).toEqual(['tool Bash', 'text']);
  });

  it("reads the tool results a request carries, not the model's call", () => {
    expect(toolResults(api as Api, a.first)).toBe('[]');
    expect(JSON.parse(toolResults(api as Api, a.second))).toHaveLength(1);
  });

  it('tool mode with a tool the CLI did not offer says so in the reply', async () => {
    const id = `${api}-no-tool`;
    await put(id, { mode: 'tool', tool: { name: 'send_file', input: {} } });
    const text = a.text(events(await (await post(id, a.path, a.first)).text()));
    expect(text).toBe('fake-model: the CLI did not offer the tool send_file (offered: Bash)');
  });

  it('error mode answers the status with the API-shaped body', async () => {
    const id = `${api}-401`;
    await put(id, { mode: 'error', status: 401 });
    const r = await post(id, a.path, a.first);
    expect(r.status).toBe(401);
    const body = (await r.json()) as { error: unknown };
    expect(body.error).toBeTruthy();
  });
});

describe('the server', () => {
  it.each([
    ['POST', '/v1/messages', { type: 'model', api: 'anthropic' }],
    ['POST', '/v1/messages/count_tokens', { type: 'count', api: 'anthropic' }],
    ['POST', '/v1/chat/completions', { type: 'model', api: 'openai-chat' }],
    ['POST', '/v1/responses', { type: 'model', api: 'openai-responses' }],
    [
      'POST',
      '/v1beta/models/gemini-2.5-pro:generateContent',
      { type: 'model', api: 'gemini', model: 'gemini-2.5-pro', stream: false },
    ],
    [
      'POST',
      '/v1beta/models/x:streamGenerateContent',
      { type: 'model', api: 'gemini', model: 'x', stream: true },
    ],
    ['POST', '/v1beta/models/x:countTokens', { type: 'count', api: 'gemini' }],
    ['GET', '/v1/models', { type: 'models' }],
    ['GET', '/v1beta/models/gemini-2.5-pro', { type: 'models' }],
    ['GET', '/v1/messages', undefined],
    ['POST', '/v1/other', undefined],
  ])('%s %s', (method, path, route) => {
    expect(routeOf(method, path)).toEqual(route);
  });

  it('answers gemini JSON-mode calls (its model router) from their schema, whatever the scenario', async () => {
    await put('router', { mode: 'error', status: 500 });
    const schema = {
      type: 'object',
      properties: { reasoning: { type: 'string' }, model_choice: { type: 'string', enum: ['flash', 'pro'] } },
    };
    const r = await post('router', '/v1beta/models/x:generateContent', {
      generationConfig: { responseMimeType: 'application/json', responseJsonSchema: schema },
    });
    const body = (await r.json()) as { candidates: { content: { parts: { text: string }[] } }[] };
    expect(JSON.parse(body.candidates[0]?.content.parts[0]?.text ?? '')).toEqual({
      reasoning: 'fake',
      model_choice: 'flash',
    });
  });

  it('refuses a bad scenario, naming the field', async () => {
    const r = await put('bad', { mode: 'tool' });
    expect(r.status).toBe(400);
    expect(await r.json()).toEqual({ error: 'scenario: mode "tool" needs a tool' });
    const r2 = await put('bad', { mode: 'ok', tool: { name: 'x' } });
    expect(((await r2.json()) as { error: string }).error).toMatch(/^tool\.input: /);
  });

  it('serves the request log over HTTP, per scenario, with the whole request body', async () => {
    await put('log-a', { reply: 'a' });
    await post('log-a', '/v1/chat/completions', { messages: [{ role: 'user', content: 'turn one' }] });
    await post('log-a', '/v1/chat/completions', {
      messages: [
        { role: 'user', content: 'turn one' },
        { role: 'assistant', content: 'a' },
        { role: 'user', content: 'turn two' },
      ],
    });
    const r = await fetch(`${fake.url}/_control/requests?scenario=log-a`);
    const log = (await r.json()) as { seq: number; body: { messages: unknown[] } }[];
    expect(log.map((e) => e.body.messages.length)).toEqual([1, 3]);
    expect(log[1]?.seq).toBeGreaterThan(log[0]?.seq ?? Infinity);
    expect(JSON.stringify(log[1])).toContain('turn one');
  });

  it('hang mode never answers; close() ends the request', async () => {
    const hung = await startFakeModel();
    hung.setScenario('h', { mode: 'hang' });
    const pending = fetch(`${hung.baseUrl('h')}/v1/messages`, { method: 'POST', body: '{}' }).then(
      () => 'answered',
      () => 'cut off',
    );
    await expect.poll(() => hung.requests('h').map((r) => r.answer)).toEqual(['hang']);
    await hung.close();
    expect(await pending).toBe('cut off');
  });
});

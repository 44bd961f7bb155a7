// OpenAI Chat Completions (pi, opencode): `POST /v1/chat/completions`, streamed as `data:` chunks
// ending in `[DONE]`, or one JSON body. Errors use OpenAI's shape (shared with the Responses API).
import type { ServerResponse } from 'node:http';
import type { Answer } from './scenario.js';
import { event, newId, pieces, sendJson, startEvents } from './sse.js';

const ERRORS: Record<number, [string, string, string | null]> = {
  401: ['Incorrect API key provided: dummy.', 'invalid_request_error', 'invalid_api_key'],
  403: ['You are not allowed to use this model', 'permission_error', 'forbidden'],
  429: ['Rate limit reached for fake-model', 'rate_limit_error', 'rate_limit_exceeded'],
};

export function openaiError(res: ServerResponse, status: number): void {
  const [message, type, code] = ERRORS[status] ?? [
    'The server had an error while processing your request.',
    'server_error',
    null,
  ];
  sendJson(res, status, { error: { message, type, param: null, code } });
}

export const OPENAI_USAGE = { prompt_tokens: 42, completion_tokens: 7, total_tokens: 49 };

export function chatAnswer(
  res: ServerResponse,
  body: Record<string, unknown>,
  answer: Answer & { type: 'text' | 'tool' },
): void {
  const id = newId('chatcmpl-');
  const model = String(body.model ?? 'fake-model');
  const created = Math.floor(Date.now() / 1000);
  const call =
    answer.type === 'tool'
      ? {
          id: newId('call_'),
          type: 'function',
          function: { name: answer.call.name, arguments: JSON.stringify(answer.call.input) },
        }
      : undefined;
  const finish = call ? 'tool_calls' : 'stop';
  if (body.stream !== true) {
    const message = call
      ? { role: 'assistant', content: null, tool_calls: [call] }
      : { role: 'assistant', content: answer.type === 'text' ? answer.text : '' };
    sendJson(res, 200, {
      id,
      object: 'chat.completion',
      created,
      model,
      choices: [{ index: 0, message, finish_reason: finish }],
      usage: OPENAI_USAGE,
    });
    return;
  }
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) =>
    event(res, {
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      choices: [{ index: 0, delta, finish_reason: finishReason }],
    });
  startEvents(res);
  chunk({ role: 'assistant', content: '' });
  if (call) {
    chunk({
      tool_calls: [
        { index: 0, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } },
      ],
    });
    chunk({ tool_calls: [{ index: 0, function: { arguments: call.function.arguments } }] });
  } else if (answer.type === 'text') for (const content of pieces(answer.text)) chunk({ content });
  chunk({}, finish);
  const opts = body.stream_options as { include_usage?: boolean } | undefined;
  if (opts?.include_usage)
    event(res, { id, object: 'chat.completion.chunk', created, model, choices: [], usage: OPENAI_USAGE });
  event(res, '[DONE]');
  res.end();
}

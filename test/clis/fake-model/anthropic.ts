// Anthropic Messages (claude): `POST /v1/messages`, streamed as named SSE events or one JSON body.
import type { ServerResponse } from 'node:http';
import type { Answer } from './scenario.js';
import { event, newId, pieces, sendJson, startEvents, tokens } from './sse.js';

const ERRORS: Record<number, [string, string]> = {
  400: ['invalid_request_error', 'invalid request'],
  401: ['authentication_error', 'invalid x-api-key'],
  403: ['permission_error', 'Your API key does not have permission to use the specified resource.'],
  429: ['rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit'],
  529: ['overloaded_error', 'Overloaded'],
};

export function anthropicError(res: ServerResponse, status: number): void {
  const [type, message] = ERRORS[status] ?? ['api_error', 'Internal server error'];
  sendJson(res, status, { type: 'error', error: { type, message } }, { 'request-id': newId('req_') });
}

type Block = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: unknown };

export function anthropicAnswer(
  res: ServerResponse,
  body: Record<string, unknown>,
  answer: Answer & { type: 'text' | 'tool' },
): void {
  const model = String(body.model ?? 'claude-fake');
  const block: Block =
    answer.type === 'text'
      ? { type: 'text', text: answer.text }
      : { type: 'tool_use', id: newId('toolu_'), name: answer.call.name, input: answer.call.input };
  const stopReason = block.type === 'tool_use' ? 'tool_use' : 'end_turn';
  const usage = { input_tokens: tokens(body.messages), output_tokens: tokens(block) };
  const id = newId('msg_');
  if (body.stream !== true) {
    sendJson(res, 200, {
      id,
      type: 'message',
      role: 'assistant',
      model,
      content: [block],
      stop_reason: stopReason,
      stop_sequence: null,
      usage,
    });
    return;
  }
  const send = (type: string, data: Record<string, unknown>) => event(res, { type, ...data }, type);
  startEvents(res);
  send('message_start', {
    message: {
      id,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...usage, output_tokens: 1 },
    },
  });
  if (block.type === 'text') {
    send('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
    for (const text of pieces(block.text))
      send('content_block_delta', { index: 0, delta: { type: 'text_delta', text } });
  } else {
    send('content_block_start', { index: 0, content_block: { ...block, input: {} } });
    const json = JSON.stringify(block.input);
    send('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: json } });
  }
  send('content_block_stop', { index: 0 });
  send('message_delta', {
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: { output_tokens: usage.output_tokens },
  });
  send('message_stop', {});
  res.end();
}

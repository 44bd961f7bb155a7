// OpenAI Responses (codex): `POST /v1/responses`, streamed as named `response.*` events (codex reads
// the output items and `response.completed`), or one JSON body.
import type { ServerResponse } from 'node:http';
import type { Answer } from './scenario.js';
import { event, newId, pieces, sendJson, startEvents } from './sse.js';
import { namespacedCall } from './tools.js';

const USAGE = {
  input_tokens: 42,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: 7,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 49,
};

export function responsesAnswer(
  res: ServerResponse,
  body: Record<string, unknown>,
  answer: Answer & { type: 'text' | 'tool' },
): void {
  const model = String(body.model ?? 'fake-model');
  const response = (status: string, output: unknown[], usage: unknown = null) => ({
    id: respId,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status,
    error: null,
    incomplete_details: null,
    model,
    output,
    parallel_tool_calls: true,
    tool_choice: 'auto',
    tools: [],
    usage,
  });
  const respId = newId('resp_');
  const itemId = newId(answer.type === 'tool' ? 'fc_' : 'msg_');
  const callId = newId('call_');
  const text = answer.type === 'text' ? answer.text : '';
  const args = answer.type === 'tool' ? JSON.stringify(answer.call.input) : '';
  // A tool of a namespace (codex's MCP servers) is called by its own name plus the namespace.
  const called =
    answer.type === 'tool'
      ? (namespacedCall(body, answer.call.name) ?? { name: answer.call.name })
      : undefined;
  const item = (done: boolean) =>
    answer.type === 'tool'
      ? {
          id: itemId,
          type: 'function_call',
          status: done ? 'completed' : 'in_progress',
          ...called,
          call_id: callId,
          arguments: done ? args : '',
        }
      : {
          id: itemId,
          type: 'message',
          status: done ? 'completed' : 'in_progress',
          role: 'assistant',
          content: done ? [{ type: 'output_text', text, annotations: [] }] : [],
        };
  const final = item(true);
  if (body.stream !== true) {
    sendJson(res, 200, { ...response('completed', [final], USAGE), output_text: text });
    return;
  }
  let seq = 0;
  const send = (type: string, data: Record<string, unknown>) =>
    event(res, { type, sequence_number: seq++, ...data }, type);
  startEvents(res);
  send('response.created', { response: response('in_progress', []) });
  send('response.in_progress', { response: response('in_progress', []) });
  send('response.output_item.added', { output_index: 0, item: item(false) });
  if (answer.type === 'tool') {
    send('response.function_call_arguments.delta', { item_id: itemId, output_index: 0, delta: args });
    send('response.function_call_arguments.done', { item_id: itemId, output_index: 0, arguments: args });
  } else {
    const at = { item_id: itemId, output_index: 0, content_index: 0 };
    send('response.content_part.added', { ...at, part: { type: 'output_text', text: '', annotations: [] } });
    for (const delta of pieces(text)) send('response.output_text.delta', { ...at, delta });
    send('response.output_text.done', { ...at, text });
    send('response.content_part.done', { ...at, part: { type: 'output_text', text, annotations: [] } });
  }
  send('response.output_item.done', { output_index: 0, item: final });
  send('response.completed', { response: response('completed', [final], USAGE) });
  res.end();
}

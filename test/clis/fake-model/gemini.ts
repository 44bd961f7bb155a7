// Gemini (gemini CLI): `POST /v1beta/models/<model>:generateContent` and `:streamGenerateContent?alt=sse`.
// Besides the turn itself, the CLI asks a JSON-mode question first (its model router: which model
// should answer?); that call gets an object that fits its response schema, whatever the scenario.
import type { ServerResponse } from 'node:http';
import type { Answer } from './scenario.js';
import { event, pieces, sendJson, startEvents, tokens } from './sse.js';

const ERRORS: Record<number, [string, string]> = {
  400: ['INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.'],
  401: ['UNAUTHENTICATED', 'Request had invalid authentication credentials.'],
  403: ['PERMISSION_DENIED', 'Permission denied.'],
  429: ['RESOURCE_EXHAUSTED', 'Resource has been exhausted (e.g. check quota).'],
  503: ['UNAVAILABLE', 'The model is overloaded. Please try again later.'],
};

export function geminiError(res: ServerResponse, status: number): void {
  const [code, message] = ERRORS[status] ?? ['INTERNAL', 'An internal error has occurred.'];
  sendJson(res, status, { error: { code: status, message, status: code } });
}

type Schema = {
  type?: string;
  enum?: unknown[];
  anyOf?: Schema[];
  properties?: Record<string, Schema>;
  minimum?: number;
};

/** A value that satisfies a JSON schema: enough for the router's `{reasoning, model_choice}`. */
export function valueFor(s: Schema | undefined): unknown {
  if (!s || typeof s !== 'object') return 'fake';
  if (s.enum?.length) return s.enum[0];
  if (s.anyOf?.length) return valueFor(s.anyOf[0]);
  switch ((s.type ?? (s.properties ? 'object' : 'string')).toLowerCase()) {
    case 'object':
      return Object.fromEntries(Object.entries(s.properties ?? {}).map(([k, v]) => [k, valueFor(v)]));
    case 'array':
      return [];
    case 'boolean':
      return false;
    case 'integer':
    case 'number':
      return s.minimum ?? 1;
    default:
      return 'fake';
  }
}

/** The JSON a JSON-mode call gets, or undefined for an ordinary turn. */
export function jsonModeReply(body: Record<string, unknown>): string | undefined {
  const gc = body.generationConfig as
    | { responseMimeType?: string; responseJsonSchema?: Schema; responseSchema?: Schema }
    | undefined;
  if (gc?.responseMimeType !== 'application/json') return undefined;
  return JSON.stringify(valueFor(gc.responseJsonSchema ?? gc.responseSchema));
}

export function geminiAnswer(
  res: ServerResponse,
  body: Record<string, unknown>,
  model: string,
  stream: boolean,
  answer: Answer & { type: 'text' | 'tool' },
): void {
  const parts =
    answer.type === 'tool'
      ? [{ functionCall: { name: answer.call.name, args: answer.call.input } }]
      : [{ text: answer.text }];
  const usage = {
    promptTokenCount: tokens(body.contents),
    candidatesTokenCount: tokens(parts),
    totalTokenCount: tokens(body.contents) + tokens(parts),
  };
  const candidate = (p: unknown[], last: boolean) => ({
    content: { role: 'model', parts: p },
    index: 0,
    ...(last && { finishReason: 'STOP' }),
  });
  if (!stream) {
    sendJson(res, 200, { candidates: [candidate(parts, true)], usageMetadata: usage, modelVersion: model });
    return;
  }
  const chunks = answer.type === 'text' ? pieces(answer.text).map((text) => [{ text }]) : [parts];
  startEvents(res);
  // Gemini's stream separates events with CRLF; the CLI's parser is written against that.
  for (const [i, p] of chunks.entries()) {
    const data = {
      candidates: [candidate(p, i === chunks.length - 1)],
      usageMetadata: usage,
      modelVersion: model,
    };
    event(res, data, undefined, '\r\n');
  }
  res.end();
}

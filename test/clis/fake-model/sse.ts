// Writing JSON bodies and server-sent events, the way the real APIs do.
import type { ServerResponse } from 'node:http';

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

export function startEvents(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
}

/** One event: `event:` names it where the API does (Anthropic, Responses), `data:` carries JSON. */
export function event(res: ServerResponse, data: unknown, name?: string, eol = '\n'): void {
  const payload = typeof data === 'string' ? data : JSON.stringify(data);
  res.write(`${name ? `event: ${name}${eol}` : ''}data: ${payload}${eol}${eol}`);
}

/** Text in small deltas, as a streaming model sends it (never splitting a surrogate pair). */
export function pieces(text: string, size = 8): string[] {
  const chars = Array.from(text);
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(''));
  return out.length > 0 ? out : [''];
}

/** A rough token count for usage fields: the CLIs show it, nothing checks it. */
export const tokens = (x: unknown): number => Math.max(1, Math.ceil(JSON.stringify(x ?? '').length / 4));

export const newId = (prefix: string): string => `${prefix}${Math.random().toString(36).slice(2, 14)}`;

// The control socket's wire format: one JSON object per line each way. A request names a method;
// the response carries the same id and either a result or one short error sentence.

export interface ControlRequest {
  id: number | string;
  method: string;
  params?: unknown;
}

export type ControlResponse =
  | { id: number | string | null; ok: true; result: unknown }
  | { id: number | string | null; ok: false; error: string };

/** Longest request line accepted; a line past it closes the connection. */
export const MAX_LINE_BYTES = 1024 * 1024;

/** Pure: a parsed line is a request, or the reason it is not. */
export function parseRequest(
  line: string,
): { ok: true; request: ControlRequest } | { ok: false; error: string } {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return { ok: false, error: 'not JSON' };
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) return { ok: false, error: 'not a JSON object' };
  const r = v as Record<string, unknown>;
  if (typeof r.id !== 'number' && typeof r.id !== 'string')
    return { ok: false, error: 'id must be a number or string' };
  if (typeof r.method !== 'string' || !r.method) return { ok: false, error: 'method must be a string' };
  return { ok: true, request: { id: r.id, method: r.method, params: r.params } };
}

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

/**
 * A caller's first line on a socket that asks who calls (the relay's own control socket): its
 * process id, the abstract socket it listens on and the secret that socket answers (caller.ts).
 */
export interface Hello {
  pid: number;
  name: string;
  secret: string;
}

/** Pure: a parsed line is a hello, or undefined when it is something else (a request). */
export function parseHello(line: string): Hello | undefined {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return undefined;
  }
  const h = (v as { hello?: unknown } | null)?.hello as Partial<Hello> | undefined;
  if (!h || typeof h !== 'object') return undefined;
  const ok =
    Number.isSafeInteger(h.pid) &&
    (h.pid as number) > 0 &&
    typeof h.name === 'string' &&
    /^agentwire-peer-[0-9a-f-]{36}$/.test(h.name) &&
    typeof h.secret === 'string' &&
    /^[0-9a-f]{32,64}$/.test(h.secret);
  return ok ? { pid: h.pid as number, name: h.name as string, secret: h.secret as string } : undefined;
}

/** Whether a line is meant as a hello at all (then a malformed one is refused, not run). */
export const isHelloLine = (line: string): boolean => line.startsWith('{"hello"');

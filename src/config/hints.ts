// Hints that turn a parser's complaint into the likely mistake: JSON5 reports a missing comma at
// the first token of the next line ("invalid character 'q'"), and zod reports an unknown key
// without saying which known key was meant. Both are pure functions of the text / schema.
import { distance } from 'fastest-levenshtein';
import { z } from 'zod';

/**
 * Where a comma is probably missing, when JSON5 stopped at `line:col` with "invalid character":
 * the token there starts a key or a value, and the token before it ended a value (not `{ [ , :`,
 * and not a key). Returns the position just after that previous value.
 */
export function missingComma(
  text: string,
  line: number,
  col: number,
): { line: number; col: number } | undefined {
  const stop = offsetOf(text, line, col);
  if (stop === undefined || !/["'\w$[{+\-.]/.test(text[stop] ?? '')) return undefined;
  // Walk the text up to the error, remembering the last two significant tokens (outside strings
  // and comments) and where the last one ended.
  let last: { kind: 'punct' | 'value'; ch: string; end: number } | undefined;
  let before: typeof last;
  const open: string[] = []; // the containers the walk is inside, innermost last
  const push = (t: NonNullable<typeof last>) => {
    before = last;
    last = t;
  };
  let i = 0;
  while (i < stop) {
    const c = text[i] as string;
    if (/\s/.test(c)) i++;
    else if (text.startsWith('//', i)) i = lineEnd(text, i);
    else if (text.startsWith('/*', i)) {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? stop : end + 2;
    } else if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < stop && text[j] !== c) j += text[j] === '\\' ? 2 : 1;
      i = j + 1;
      push({ kind: 'value', ch: c, end: i });
    } else if ('{}[],:'.includes(c)) {
      if (c === '{' || c === '[') open.push(c);
      else if (c === '}' || c === ']') open.pop();
      i++;
      push({ kind: 'punct', ch: c, end: i });
    } else {
      let j = i;
      while (j < stop && !/[\s{}[\],:"'/]/.test(text[j] as string)) j++;
      i = Math.max(j, i + 1);
      push({ kind: 'value', ch: c, end: i });
    }
  }
  const endsValue = last && (last.kind === 'value' || last.ch === '}' || last.ch === ']');
  // Inside an object, a word right after `{` or `,` was a key waiting for its colon, not a value.
  const wasKey =
    last?.kind === 'value' && open.at(-1) === '{' && (!before || before.ch === '{' || before.ch === ',');
  if (!last || !endsValue || wasKey) return undefined;
  return position(text, last.end);
}

function lineEnd(text: string, i: number): number {
  const nl = text.indexOf('\n', i);
  return nl < 0 ? text.length : nl;
}

function offsetOf(text: string, line: number, col: number): number | undefined {
  let at = 0;
  for (let l = 1; l < line; l++) {
    const nl = text.indexOf('\n', at);
    if (nl < 0) return undefined;
    at = nl + 1;
  }
  const off = at + col - 1;
  return off < text.length ? off : undefined;
}

function position(text: string, offset: number): { line: number; col: number } {
  const before = text.slice(0, offset);
  return { line: before.split('\n').length, col: offset - before.lastIndexOf('\n') };
}

/** The known key closest to `key`, if it is close enough to be a typo (case and 1-3 edits). */
export function nearestKey(key: string, known: readonly string[]): string | undefined {
  let best: { k: string; d: number } | undefined;
  for (const k of known) {
    const d = k.toLowerCase() === key.toLowerCase() ? 0 : distance(key, k);
    if (!best || d < best.d) best = { k, d };
  }
  // Two edits (a swapped pair costs two), up to three for long keys: `kidn` -> kind, `foo` -> nothing.
  const allowed = Math.min(3, Math.max(2, Math.floor(key.length / 3)));
  return best && best.d <= allowed ? best.k : undefined;
}

/** The keys an object at `path` in `schema` accepts (array indexes step into the element). */
export function knownKeys(schema: z.ZodType, path: readonly (string | number)[]): string[] {
  let s: z.ZodType | undefined = unwrap(schema);
  for (const p of path) {
    if (!s) return [];
    if (s instanceof z.ZodObject && typeof p === 'string')
      // A key outside the shape is checked by the catch-all, when there is one (`agents.<kind>`; a
      // strict object's catch-all is z.never()).
      s = (s.shape as Record<string, z.ZodType>)[p] ?? catchAll(s);
    else if (s instanceof z.ZodArray && typeof p === 'number') s = s.element as z.ZodType;
    else if (s instanceof z.ZodRecord) s = s.valueType as z.ZodType;
    else return [];
    s = s && unwrap(s);
  }
  return s instanceof z.ZodObject ? Object.keys(s.shape) : [];
}

function catchAll(s: z.ZodObject): z.ZodType | undefined {
  const c = s.def.catchall as z.ZodType | undefined;
  return c && !(c instanceof z.ZodNever) ? c : undefined;
}

function unwrap(schema: z.ZodType): z.ZodType {
  let s = schema;
  for (;;) {
    if (
      s instanceof z.ZodDefault ||
      s instanceof z.ZodPrefault ||
      s instanceof z.ZodOptional ||
      s instanceof z.ZodNullable
    )
      s = s.unwrap() as z.ZodType;
    else if (s instanceof z.ZodPipe) s = s.in as z.ZodType;
    else return s;
  }
}

// Text with a NUL character (U+0000) on PostgreSQL: its TEXT and JSONB cannot hold one (SQLite can,
// and a message or an agent's reply may carry one), so the content columns store it escaped and give
// it back unescaped. The escape is one character chosen for its rarity, U+FFFF (a noncharacter,
// which PostgreSQL stores like any other): NUL is written as U+FFFF "0", and U+FFFF itself as
// U+FFFF "e", so every text maps to exactly one stored form and back. Text with neither character
// (nearly all) is stored as it is, so SQL that compares or prefixes such text reads it unchanged.
// Only columns that hold content (a message, a reply, a question, a task's prompt, an agent's error)
// go through here: keys, ids and agentwire's own words cannot hold a NUL.

const ESC = '\uffff';
const NEEDS = /[\u0000\uffff]/;
const WRITE = /[\u0000\uffff]/g;
const READ = /\uffff([0e])/g;

/** The stored form of `s`. */
export function escapeNul(s: string): string {
  return NEEDS.test(s) ? s.replace(WRITE, (c) => (c === ESC ? `${ESC}e` : `${ESC}0`)) : s;
}

/** The text of a stored form. */
export function unescapeNul(s: string): string {
  return s.includes(ESC) ? s.replace(READ, (_, c: string) => (c === '0' ? '\u0000' : ESC)) : s;
}

/** `escapeNul` for a nullable column. */
export const escapeOpt = (s: string | null | undefined): string | null => (s == null ? null : escapeNul(s));

/** `unescapeNul` for a nullable column. */
export const unescapeOpt = (s: string | null): string | null => (s === null ? null : unescapeNul(s));

/** A value as JSON for a JSONB column, every string in it escaped (keys are agentwire's own). */
export function toJsonb(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'string' ? escapeNul(x) : x));
}

/** A value read from a JSONB column (or built by json_agg from content columns), its strings unescaped. */
export function fromJsonb<T>(v: T): T {
  if (typeof v === 'string') return unescapeNul(v) as T;
  if (Array.isArray(v)) return v.map(fromJsonb) as T;
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = fromJsonb(x);
    return out as T;
  }
  return v;
}

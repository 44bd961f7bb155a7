// Reading a stdout line without JSON.parse, where that gives exactly what JSON.parse would. Parsing
// every line is what made streaming progress cost up to twice a bare JSON.parse loop (bench/parse);
// both shortcuts here are exact, so every parser's results stay the same (test/agents/line-forms and
// reading.test.ts hold them to JSON.parse).
//
// - wordsTest: whether a line can hold a given word as a JSON string at all; a line that cannot
//   goes by unread.
// - lineForm: the CLIs print most of their lines in a few fixed forms, the same keys in the same
//   order with only the values changing. A pattern of such a whole line admits nothing but valid
//   JSON with exactly those keys, and reads strings and numbers by JSON's own grammar, so the values
//   it captures are those JSON.parse gives. A line in any other form (one key more, white space, a
//   new CLI version's order) is parsed as before; it is only slower.

/**
 * A JSON string token as JSON.parse accepts one: no raw quote, backslash or control character,
 * only JSON's escapes. Each character can match one way only, so a failing match backtracks
 * linearly, never exponentially.
 */
export const STRING = String.raw`"(?:[^"\\\u0000-\u001f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"`;

/** A JSON number token. */
export const NUMBER = String.raw`-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?`;

/** The value of a token STRING matched: what JSON.parse gives for it. */
export function stringValue(token: string): string {
  return token.includes('\\') ? (JSON.parse(token) as string) : token.slice(1, -1);
}

/** The value of a token NUMBER matched: JSON.parse and Number convert a number the same way. */
export const numberValue = (token: string): number => Number(token);

const literal = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function source(text: readonly string[], values: readonly string[], captured: (i: number) => boolean) {
  const group = (i: number) => (captured(i) ? `(${values[i]})` : `(?:${values[i]})`);
  return text.map((s, i) => literal(s) + (i < values.length ? group(i) : '')).join('');
}

/**
 * A pattern written as the JSON text it matches: the template's text literally, with `${STRING}`,
 * `${NUMBER}` or other patterns in it. Uncaptured: it is for a part of a line (a repeated one,
 * where a capture would hold only the last).
 */
export function jsonPattern(text: TemplateStringsArray, ...values: string[]): string {
  return source(text.raw, values, () => false);
}

/** The pattern of a whole line, written as the line itself (see jsonPattern). */
export class LineForm {
  /** Capturing every value, 1, 2, … in order. */
  readonly all: RegExp;

  constructor(
    private readonly text: readonly string[],
    private readonly values: readonly string[],
  ) {
    this.all = new RegExp(`^${source(text, values, () => true)}$`);
  }

  /**
   * The same pattern capturing only the values at these places (1, 2, … as in `all`), in order:
   * a match costs a string per capture, and most readers need one value.
   */
  only(...places: number[]): RegExp {
    return new RegExp(`^${source(this.text, this.values, (i) => places.includes(i + 1))}$`);
  }
}

export const lineForm = (text: TemplateStringsArray, ...values: string[]): LineForm =>
  new LineForm(text.raw, values);

// Longer lines go to JSON.parse: a pattern's backtracking stack grows with the line (a line of
// megabytes overflows it), and the lines worth reading this way are short.
const FORM_MAX = 16 * 1024;

/** What a form captured of a line in that form, else null. */
export function readForm(form: RegExp, line: string): RegExpExecArray | null {
  return line.length <= FORM_MAX ? form.exec(line) : null;
}

/**
 * A test for lines that may hold one of `words` as a JSON string, key or value. A JSON string equal
 * to a word of letters, digits, `.`, `_` and `-` is written either just so, in its quotes, or with a
 * `\u` escape (no other escape spells such a character), so a line with neither holds no such
 * string anywhere, whatever the order or repetition of its keys. One pattern scans the line once (a
 * loop of `includes` scanned it once per word, for half the cost of the parse it saved).
 */
export function wordsTest(...words: string[]): RegExp {
  for (const w of words) if (!/^[A-Za-z0-9._-]+$/.test(w)) throw new Error(`not a plain word: ${w}`);
  return new RegExp(`"(?:${words.map((w) => w.replaceAll('.', '\\.')).join('|')})"|\\\\u`);
}

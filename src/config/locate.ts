// Where a key path sits in a JSON5 config file, for a problem's LINE:COL: a small tokenizer over
// the source text, since JSON5's parser keeps no positions. Pure; best effort (a default that was
// never written has no place in the file).
/**
 * Where a problem is reported: at its key when the file has it; else at the nearest ancestor the
 * file has (a missing required key is reported at the object that lacks it); else at the top-level
 * value. Every problem in a file that was read therefore gets a LINE:COL.
 */
export function locateNearest(
  text: string,
  path: readonly (string | number)[],
): { line?: number; col?: number } {
  if (!text) return {};
  for (let n = path.length; n > 0; n--) {
    const at = locate(text, path.slice(0, n));
    if (at.line !== undefined) return at;
  }
  const lead = /^(?:\s+|\/\/[^\n]*|\/\*[\s\S]*?\*\/)*/.exec(text)?.[0].length ?? 0;
  return position(text, Math.min(lead, Math.max(0, text.length - 1)));
}

function position(text: string, offset: number): { line: number; col: number } {
  const before = text.slice(0, offset);
  return { line: before.split('\n').length, col: offset - before.lastIndexOf('\n') };
}

/**
 * Finds where a key path sits in JSON5 source, by walking the text with a small tokenizer.
 * Best effort: returns nothing when the path cannot be found (e.g. a default that was never written).
 */
export function locate(text: string, path: readonly (string | number)[]): { line?: number; col?: number } {
  if (!text || path.length === 0) return {};
  const offset = findOffset(text, path);
  if (offset === undefined) return {};
  return position(text, offset);
}

function findOffset(text: string, path: readonly (string | number)[]): number | undefined {
  let i = 0;
  const skip = () => {
    for (;;) {
      while (i < text.length && /\s/.test(text[i] as string)) i++;
      if (text.startsWith('//', i)) {
        const nl = text.indexOf('\n', i);
        i = nl < 0 ? text.length : nl + 1;
      } else if (text.startsWith('/*', i)) {
        const end = text.indexOf('*/', i + 2);
        i = end < 0 ? text.length : end + 2;
      } else return;
    }
  };
  const readString = (): string => {
    const q = text[i];
    i++;
    let s = '';
    while (i < text.length && text[i] !== q) {
      if (text[i] === '\\') {
        const [value, length] = escapeAt(text, i);
        s += value;
        i += length;
        continue;
      }
      s += text[i];
      i++;
    }
    i++;
    return s;
  };
  const skipValue = (): void => {
    skip();
    const c = text[i];
    if (c === '"' || c === "'") return void readString();
    if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      i++;
      for (;;) {
        skip();
        if (i >= text.length) return;
        if (text[i] === close) {
          i++;
          return;
        }
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (c === '{') {
          readKey();
          skip();
          if (text[i] === ':') i++;
        }
        skipValue();
      }
    }
    while (i < text.length && !/[,}\]\s]/.test(text[i] as string)) i++;
  };
  const readKey = (): string => {
    skip();
    const c = text[i];
    if (c === '"' || c === "'") return readString();
    // An identifier key (JSON5 allows Unicode letters and \\uXXXX escapes): up to space, `:` or a comment.
    let key = '';
    while (
      i < text.length &&
      !/[\s:,{}[\]]/.test(text[i] as string) &&
      !text.startsWith('/*', i) &&
      !text.startsWith('//', i)
    ) {
      if (text[i] === '\\') {
        const [value, length] = escapeAt(text, i);
        key += value;
        i += length;
      } else key += text[i++];
    }
    return key;
  };
  // Descend one path element at a time.
  let depth = 0;
  skip();
  for (;;) {
    const want = path[depth];
    skip();
    const c = text[i];
    if (typeof want === 'string' && c === '{') {
      i++;
      let found = false;
      for (;;) {
        skip();
        if (i >= text.length || text[i] === '}') return undefined;
        if (text[i] === ',') {
          i++;
          continue;
        }
        const keyStart = i;
        const key = readKey();
        skip();
        if (text[i] === ':') i++;
        if (key === want) {
          if (depth === path.length - 1) return keyStart;
          found = true;
          break;
        }
        skipValue();
      }
      if (!found) return undefined;
    } else if (typeof want === 'number' && c === '[') {
      i++;
      for (let n = 0; ; n++) {
        skip();
        if (text[i] === ',') {
          i++;
          skip();
        }
        if (i >= text.length || text[i] === ']') return undefined;
        if (n === want) break;
        skipValue();
      }
      if (depth === path.length - 1) return i;
    } else return undefined;
    depth++;
  }
}

const SIMPLE_ESCAPES: Record<string, string> = {
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '0': '\0',
};

/** The character a JSON5 escape at `at` (a backslash) stands for, and how long the escape is. */
function escapeAt(text: string, at: number): [string, number] {
  const c = text[at + 1] ?? '';
  const hex = (n: number) => {
    const digits = text.slice(at + 2, at + 2 + n);
    return /^[0-9a-fA-F]+$/.test(digits) && digits.length === n
      ? String.fromCharCode(Number.parseInt(digits, 16))
      : undefined;
  };
  if (c === 'u') {
    const v = hex(4);
    if (v !== undefined) return [v, 6];
  }
  if (c === 'x') {
    const v = hex(2);
    if (v !== undefined) return [v, 4];
  }
  // A backslash before a line break continues the string on the next line.
  if (c === '\r' && text[at + 2] === '\n') return ['', 3];
  if (c === '\n' || c === '\r' || c === '\u2028' || c === '\u2029') return ['', 2];
  return [SIMPLE_ESCAPES[c] ?? c, 2];
}

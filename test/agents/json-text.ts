// Writing JSON the way CLIs may but JSON.stringify never does, to test readers against JSON.parse.

/** A string as a JSON token, some plain characters written as \u escapes. */
export function escaped(s: string, pick: (i: number) => boolean): string {
  const chars = [...s].map((c, i) =>
    /^[A-Za-z0-9._-]$/.test(c) && pick(i)
      ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`
      : JSON.stringify(c).slice(1, -1),
  );
  return `"${chars.join('')}"`;
}

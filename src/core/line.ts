// One line of untrusted text (a push name, a group message kept as context, a shared place's name):
// what a stranger controls must not start a new line, reorder the text around it, or grow unbounded.

const MAX_LINE_CHARS = 500;

/** `text` cut to at most `max` code units plus `…`, never between the two halves of a surrogate pair. */
export function cutText(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max).replace(/[\ud800-\udbff]$/, '')}…` : text;
}

/** Strips control and bidi-override characters and folds newlines, so one entry stays one line. */
export function sanitizeLine(text: string, max = MAX_LINE_CHARS): string {
  const flat = text
    .replace(/[\r\n\t\u0085\u2028\u2029]+/g, ' ')
    .replace(/[\p{Cc}\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu, '')
    .trim();
  return cutText(flat, max);
}

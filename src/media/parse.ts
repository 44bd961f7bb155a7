// `MEDIA:` references in what an agent wrote. A reference is a whole line: `MEDIA:` (any case)
// after optional leading whitespace, then one path or URL (the rest of the line, trimmed, with one
// pair of surrounding backticks or quotes removed; spaces inside are kept). Lines in fenced code
// blocks and text inside inline code never count, so an agent explaining the syntax does not send
// files. A target that is plainly not a path or URL (a JSON blob, a sentence, kilobytes of text,
// control characters) leaves the line as text: the file system is never asked about it, and the
// user does not get "no such file" for what was prose. The references are raw: checking them is
// policy.ts's job.

export interface MediaExtraction {
  /** The text with reference lines removed, blank runs they leave collapsed, trimmed. */
  text: string;
  /** Raw references in order, without duplicates. */
  media: string[];
}

const FENCE = /^\s*(`{3,}|~{3,})(.*)$/;
const REFERENCE = /^\s*media:(.*)$/i;
const MAYBE_REFERENCE = /media:/i;

export function extractMedia(input: string): MediaExtraction {
  // Nearly every message has no reference at all; its text is then only re-joined and trimmed. A run
  // with thousands of messages spent most of its parse here (bench/parse).
  if (!MAYBE_REFERENCE.test(input)) return { text: input.replace(/\r\n/g, '\n').trim(), media: [] };
  const lines = input.split(/\r?\n/);
  const code = codeLines(lines);
  // A Set keeps it linear: agent output is untrusted and may hold many thousands of lines.
  const media = new Set<string>();
  // null marks a removed reference line.
  const kept: (string | null)[] = lines.map((line, i) => {
    if (code[i]) return line;
    const ref = referenceOf(line);
    if (ref === undefined) return line;
    media.add(ref);
    return null;
  });
  return { text: collapse(kept).trim(), media: [...media] };
}

/** Media from several assistant messages, in order, each reference once. */
export function mergeMedia(lists: readonly (readonly string[])[]): string[] {
  const out = new Set<string>();
  for (const list of lists) for (const m of list) out.add(m);
  return [...out];
}

function referenceOf(line: string): string | undefined {
  const m = REFERENCE.exec(line);
  if (!m) return undefined;
  let value = (m[1] ?? '').trim();
  const first = value[0];
  if (value.length >= 2 && (first === '`' || first === '"' || first === "'") && value.endsWith(first)) {
    value = value.slice(1, -1).trim();
  }
  return value === '' || !couldBeTarget(value) ? undefined : value;
}

/** Longest target kept: PATH_MAX on Linux; a URL longer than this is not one an agent means. */
export const MAX_TARGET_CHARS = 4096;
/** NAME_MAX: no file name (one path segment) is longer. */
const MAX_SEGMENT_CHARS = 255;
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f]/;
const JSONISH = /^[{[]\s*(?:["{[\]}]|$)/;
const EXTENSION = /\.[A-Za-z0-9]{1,10}$/;

/**
 * Whether `value` could name a file or a URL at all. Only the plain cases are refused: anything
 * that might be a real path (spaces, brackets, unicode) is left for the policy to check.
 */
export function couldBeTarget(value: string): boolean {
  if (value.length > MAX_TARGET_CHARS || CONTROL.test(value)) return false;
  if (JSONISH.test(value) || (/^[{[]/.test(value) && isJson(value))) return false;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return true;
  if (value.split(/[\\/]/).some((seg) => seg.length > MAX_SEGMENT_CHARS)) return false;
  // A sentence: five or more words with no folder separator and no file extension at the end.
  const words = value.split(/\s+/).length;
  return !(words >= 5 && !/[\\/]/.test(value) && !EXTENSION.test(value));
}

function isJson(value: string): boolean {
  try {
    JSON.parse(value);
    return true;
  } catch {
    return false;
  }
}

/** Which lines are inside a fenced block, or start inside an inline code span. */
function codeLines(lines: readonly string[]): boolean[] {
  const code = lines.map(() => false);
  let fence: { char: string; len: number } | undefined;
  let paragraph: number[] = [];
  const flush = () => {
    markInlineSpans(lines, paragraph, code);
    paragraph = [];
  };
  lines.forEach((line, i) => {
    const f = FENCE.exec(line);
    if (fence) {
      code[i] = true;
      if (f && f[1]![0] === fence.char && f[1]!.length >= fence.len && f[2]!.trim() === '') fence = undefined;
      return;
    }
    if (f && !(f[1]![0] === '`' && f[2]!.includes('`'))) {
      flush();
      fence = { char: f[1]![0]!, len: f[1]!.length };
      code[i] = true;
      return;
    }
    if (line.trim() === '') flush();
    else paragraph.push(i);
  });
  flush();
  return code;
}

/**
 * Inline code spans (CommonMark: a run of N backticks closed by the next run of exactly N in the
 * same paragraph) may cover line breaks; a line whose start lies inside one is code.
 */
function markInlineSpans(lines: readonly string[], idx: readonly number[], code: boolean[]): void {
  // A line's start lies inside a span only if the span opened on an earlier line and closes on this
  // one or later: with backticks on fewer than two lines there is none (nearly every paragraph; a
  // run with thousands of messages spent a tenth of its parse joining and scanning them).
  let withTicks = 0;
  for (const i of idx) if (lines[i]!.includes('`') && ++withTicks === 2) break;
  if (withTicks < 2) return;
  const joined = idx.map((i) => lines[i]).join('\n');
  const lineStarts: number[] = [];
  let pos = 0;
  for (const i of idx) {
    lineStarts.push(pos);
    pos += lines[i]!.length + 1;
  }
  const runs = [...joined.matchAll(/`+/g)].map((m) => ({ at: m.index, len: m[0].length }));
  // The next run of the same length after each run, found in one backwards pass (linear, not a
  // search per run: a long reply full of backticks must not cost quadratic time).
  const nextSame = new Array<number>(runs.length).fill(-1);
  const lastSeen = new Map<number, number>();
  for (let r = runs.length - 1; r >= 0; r--) {
    const len = runs[r]!.len;
    nextSame[r] = lastSeen.get(len) ?? -1;
    lastSeen.set(len, r);
  }
  // Spans come in increasing order, so one pointer walks the line starts once.
  let k = 0;
  for (let r = 0; r < runs.length; r++) {
    const closeAt = nextSame[r]!;
    if (closeAt === -1) continue;
    const open = runs[r]!;
    const close = runs[closeAt]!;
    while (k < lineStarts.length && lineStarts[k]! <= open.at) k++;
    for (; k < lineStarts.length && lineStarts[k]! < close.at; k++) code[idx[k]!] = true;
    r = closeAt;
  }
}

function collapse(kept: readonly (string | null)[]): string {
  const out: string[] = [];
  let i = 0;
  while (i < kept.length) {
    const line = kept[i];
    if (line !== null && line !== undefined && line.trim() !== '') {
      out.push(line);
      i++;
      continue;
    }
    // A run of blank and removed lines: left alone unless a reference was removed from it.
    let j = i;
    let removed = false;
    const blanks: string[] = [];
    while (j < kept.length && (kept[j] === null || kept[j]!.trim() === '')) {
      if (kept[j] === null) removed = true;
      else blanks.push(kept[j]!);
      j++;
    }
    if (!removed) out.push(...blanks);
    else if (blanks.length > 0) out.push('');
    i = j;
  }
  return out.join('\n');
}

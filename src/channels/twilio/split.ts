// Twilio refuses a Body over 1,600 characters (21617 / 21658) for SMS and for WhatsApp through Twilio
// alike, so long replies go out as several messages. Cuts prefer a paragraph break, then a line break,
// then a sentence end, then a space; a hard cut falls on a grapheme boundary, so a surrogate pair (or an
// emoji sequence) is never torn in two. Lengths count UTF-16 code units, which is never less than what
// Twilio counts, so a chunk under the limit here is under it there.

/** Twilio's hard limit on one message body, whatever the channel. */
export const TWILIO_BODY_LIMIT = 1600;

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const SENTENCE_END = /[.!?…。！？]["'”’)\]]*\s/g;

interface Cut {
  /** End of this chunk (exclusive). */
  end: number;
  /** Where the next chunk starts (after the separator). */
  next: number;
}

export function splitMessage(text: string, limit: number = TWILIO_BODY_LIMIT): string[] {
  if (!Number.isInteger(limit) || limit < 16) throw new RangeError(`limit must be an integer >= 16`);
  if (text.length <= limit) return text.trim() ? [text] : [];
  const out: string[] = [];
  let rest = text;
  while (rest.length > limit) {
    const { end, next } = findCut(rest, limit);
    const chunk = rest.slice(0, end).trimEnd();
    if (chunk) out.push(chunk);
    rest = rest.slice(next).replace(/^\n+/, '');
  }
  if (rest.trim()) out.push(rest);
  return out;
}

function findCut(s: string, limit: number): Cut {
  const window = s.slice(0, limit + 1);
  // A boundary this early would leave a short message and a long tail; look for a later one instead.
  const min = Math.floor(limit * 0.4);
  const para = window.lastIndexOf('\n\n', limit - 1);
  if (para >= min) return { end: para, next: para + 2 };
  const line = window.lastIndexOf('\n', limit - 1);
  if (line >= min) return { end: line, next: line + 1 };
  let sentence = -1;
  for (const m of window.matchAll(SENTENCE_END)) {
    const endOfPunct = m.index + m[0].length - 1;
    if (endOfPunct <= limit) sentence = endOfPunct;
  }
  if (sentence >= min) return { end: sentence, next: sentence + 1 };
  const space = window.lastIndexOf(' ', limit);
  if (space >= min) return { end: space, next: space + 1 };
  const hard = hardCut(s, limit);
  return { end: hard, next: hard };
}

/** The last grapheme boundary at or before `limit`. */
function hardCut(s: string, limit: number): number {
  let cut = 0;
  for (const seg of segmenter.segment(s.slice(0, limit + 32))) {
    const end = seg.index + seg.segment.length;
    if (end > limit) break;
    cut = end;
  }
  if (cut > 0) return cut;
  // A single grapheme longer than the limit (pathological combining runs): cut between code points.
  const code = s.charCodeAt(limit - 1);
  return code >= 0xd800 && code <= 0xdbff ? limit - 1 : limit;
}

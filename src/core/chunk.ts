// THE splitter: every reply, on every channel, is cut into messages here, once, by the rules the
// channel's plug-in gives (src/channels/plugin.ts, textRules). Pure. Preferences, in order: never cut
// a grapheme (a surrogate pair, an emoji sequence); never produce an empty message; keep a fenced
// code block whole when it fits in one message (cut before it instead); otherwise cut between
// paragraphs, then lines, then sentences, then words, and only then mid-word. A code block too long
// for one message is cut at a line inside it and closed, then re-opened with the same fence (and
// language) at the top of the next message. A channel that shows Markdown as plain text (SMS) turns
// fences off: there a fence is just text, and re-opening it would only add characters.

/** Fences longer than this are not treated as fences, which bounds the re-open overhead. */
const FENCE = /^ {0,3}(`{3,12}|~{3,12})([^\n`]*)$/;
/** Below this limit fences are ignored: re-opening them could leave no room for content. */
const MIN_FENCE_LIMIT = 64;

interface Block {
  /** Index of the opening line's first character. */
  start: number;
  /** Index of the newline ending the opening line. */
  openEnd: number;
  /** Index just past the closing line (its newline, or the end of the text). */
  end: number;
  marker: string;
  /** The line used to re-open the block in the next message (marker + short info string). */
  reopen: string;
}

/** How one channel's messages are cut (a channel plug-in's `textRules`). */
export interface ChunkRules {
  /** The longest text one message may carry, in UTF-16 code units (never fewer than the provider counts). */
  limit: number;
  /**
   * True (the default) when the channel renders Markdown code fences (WhatsApp, Telegram): a block cut
   * in two is closed and re-opened. False for plain-text channels (SMS).
   */
  fences?: boolean;
}

/** A channel that declares no rules: SMS's concatenated-message size, the smallest of ours. */
export const FALLBACK_TEXT_LIMIT = 1600;

/**
 * The rules a chat's text is cut by, for the queue's replies and the agent's send_message alike:
 * the channel plug-in's, with a running channel's own textLimit winning (a test's fake channel,
 * the console).
 */
export function channelRules(running: number | undefined, plugin: ChunkRules | undefined): ChunkRules {
  return { limit: running ?? plugin?.limit ?? FALLBACK_TEXT_LIMIT, fences: plugin?.fences ?? true };
}

export function chunkText(text: string, rules: number | ChunkRules): string[] {
  const { limit, fences = true } = typeof rules === 'number' ? { limit: rules } : rules;
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`chunk limit must be ≥ 1, got ${limit}`);
  const out: string[] = [];
  const push = (s: string) => {
    const t = s.replace(/\s+$/, '');
    if (t.trim()) out.push(t);
  };
  let rest = text.replace(/^(?:[ \t]*\n)+/, '').replace(/\s+$/, '');
  while (rest.length > 0) {
    if (rest.length <= limit) {
      push(rest);
      break;
    }
    const fenced = fences && limit >= MIN_FENCE_LIMIT ? fencedCut(rest, limit) : undefined;
    if (fenced) {
      push(fenced.chunk);
      rest = fenced.rest;
      continue;
    }
    const cut = softCut(rest, limit, () => true);
    push(rest.slice(0, cut.end));
    rest = rest.slice(cut.next).replace(/^\n+/, '');
  }
  return out;
}

interface Cut {
  end: number;
  next: number;
}

const isHighSurrogate = (c: number) => c >= 0xd800 && c <= 0xdbff;
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
/** A sentence end: its punctuation and any closing quotes or brackets, then white space. */
const SENTENCE_END = /[.!?…。！？]["'”’)\]]*\s/g;

/** The best break at or before `max` where `allowed(p)`; falls back to a hard cut at `max`. */
function softCut(s: string, max: number, allowed: (p: number) => boolean, min = 0): Cut {
  const half = Math.floor(max / 2);
  const para = lastIndex(s, /\n[ \t]*\n/g, max, allowed, min);
  if (para && para.end >= half) return para;
  const line = lastIndex(s, /\n/g, max, allowed, min);
  if (line && line.end >= half) return line;
  const sentence = lastIndex(s, SENTENCE_END, max, allowed, min, true);
  if (sentence && sentence.end >= half) return sentence;
  const word = lastIndex(s, /[ \t\n]/g, max, allowed, min);
  if (word) return word;
  let end = hardCut(s, max);
  if (end <= min) end = max; // nothing whole fits after `min`: still make progress
  return { end, next: end };
}

/** The last grapheme boundary at or before `max`, or a code point boundary inside a giant grapheme. */
function hardCut(s: string, max: number): number {
  let cut = 0;
  for (const g of graphemes.segment(s.slice(0, max + 32))) {
    const end = g.index + g.segment.length;
    if (end > max) break;
    cut = end;
  }
  if (cut > 0) return cut;
  // One grapheme longer than the limit (a pathological run of combining marks): cut between code points.
  return isHighSurrogate(s.charCodeAt(max - 1)) && max > 1 ? max - 1 : max;
}

/**
 * The last match of `re` that starts in (min, max] at an allowed position; the cut falls before the
 * match, or with `keepMatch` after all of it but its last character (a sentence keeps its full stop
 * and loses the space after it).
 */
function lastIndex(
  s: string,
  re: RegExp,
  max: number,
  allowed: (p: number) => boolean,
  min: number,
  keepMatch = false,
): Cut | undefined {
  let best: Cut | undefined;
  const window = s.slice(0, max + 1);
  for (let m = re.exec(window); m; m = re.exec(window)) {
    const end = keepMatch ? m.index + m[0].length - 1 : m.index;
    if (end > min && end <= max && allowed(end)) best = { end, next: m.index + m[0].length };
  }
  return best;
}

function scanBlocks(s: string, upto: number): Block[] {
  const blocks: Block[] = [];
  let open: Omit<Block, 'end'> | undefined;
  let pos = 0;
  // Only blocks that start inside the window matter; stop scanning past it unless one is open.
  while (pos < s.length && (open || pos <= upto)) {
    const nl = s.indexOf('\n', pos);
    const lineEnd = nl < 0 ? s.length : nl;
    const m = FENCE.exec(s.slice(pos, lineEnd));
    if (m) {
      const marker = m[1] as string;
      const info = (m[2] as string).trim();
      if (!open) {
        const reopen = info && marker.length + info.length <= 24 ? marker + info : marker;
        open = { start: pos, openEnd: lineEnd, marker, reopen };
      } else if (marker[0] === open.marker[0] && marker.length >= open.marker.length && !info) {
        blocks.push({ ...open, end: lineEnd });
        open = undefined;
      }
    }
    pos = lineEnd + 1;
  }
  if (open) blocks.push({ ...open, end: s.length });
  return blocks;
}

function fencedCut(s: string, limit: number): { chunk: string; rest: string } | undefined {
  const blocks = scanBlocks(s, limit);
  if (blocks.length === 0) return undefined;
  const straddling = blocks.find((b) => b.start < limit && b.end > limit);
  if (straddling && (straddling.end - straddling.start > limit || straddling.start === 0)) {
    // The block cannot fit in one message anyway: fill this one, close the fence, re-open it next.
    const b = straddling;
    const room = limit - (b.marker.length + 1);
    if (b.openEnd < room) {
      const inside = (p: number) => p > b.openEnd && outsideOthers(blocks, b, p);
      const line = lastIndex(s, /\n/g, room, inside, b.openEnd);
      // No whole code line fits after the text before the block: end this message before it.
      if (!line && b.start > 0) return outsideCut(s, limit, blocks);
      const cut = line ?? softCut(s, room, inside, b.openEnd);
      const chunk = `${s.slice(0, cut.end).replace(/\s+$/, '')}\n${b.marker}`;
      return { chunk, rest: `${b.reopen}\n${s.slice(cut.next)}` };
    }
  }
  return outsideCut(s, limit, blocks);
}

function outsideCut(s: string, limit: number, blocks: Block[]): { chunk: string; rest: string } {
  const outside = (p: number) => !blocks.some((b) => b.start < p && p < b.end);
  const cut = softCut(s, limit, outside);
  return { chunk: s.slice(0, cut.end), rest: s.slice(cut.next).replace(/^\n+/, '') };
}

const outsideOthers = (blocks: Block[], self: Block, p: number) =>
  !blocks.some((b) => b !== self && b.start < p && p < b.end);

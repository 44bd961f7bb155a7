// What the agent is asked, built from one or more stored inbound messages. Pure. Message text goes
// through verbatim (it is the prompt); names and file names are untrusted labels, so control
// characters and newlines are flattened and they are cut short, which keeps a sender from forging
// the "[Message from …]" headers the collect policy uses. A line of message text that starts like
// one of our bracketed headers gets a backslash in front, so a sender cannot write a fake header
// for another person, or a fake "[image attached: /some/path]" line that points the agent at a file.
import { dateFormat } from './date-format.js';
import { cutText } from './line.js';
import type { InboundMedia } from './types.js';

export interface PromptMessage {
  senderId: string;
  senderName?: string;
  text: string;
  media: InboundMedia[];
  isGroup: boolean;
  context?: string;
  /** When the sender sent it, ms since the epoch. */
  sentAt: number;
}

export interface PromptOptions {
  /** IANA zone for the times in collected headers; the machine's zone when absent. */
  timeZone?: string;
}

/**
 * Characters that break a label out of its line or reorder it on screen: C0/C1 controls, the Unicode
 * line and paragraph separators (which some readers, models included, take as a line break), bidi
 * marks, overrides and isolates, and zero-width characters.
 */
const UNSAFE_IN_LABEL =
  /[\p{Cc}\p{Zl}\p{Zp}\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]+/gu;

/** Flattens control characters (incl. newlines and bidi overrides) and caps the length. */
export function label(s: string, max = 64): string {
  const flat = s.replace(UNSAFE_IN_LABEL, ' ').trim();
  return flat.length <= max ? flat : cutText(flat, max - 1);
}

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** One line per attachment: the agent is told where the file is and what it is. */
export function mediaLines(media: readonly InboundMedia[]): string[] {
  return media.map((m) => {
    const name = m.fileName ? `, named "${label(m.fileName, 80)}"` : '';
    return `[${m.kind} attached: ${m.path} (${label(m.mimeType, 60)}, ${size(m.sizeBytes)}${name})]`;
  });
}

function who(m: PromptMessage): string {
  const name = m.senderName ? label(m.senderName) : '';
  const id = label(m.senderId, 80);
  return name && name !== id ? `${name} (${id})` : id;
}

function time(at: number, timeZone?: string): string {
  return dateFormat('en-GB', {
    hour: '2-digit',
    minute: '2-digit',
    hour12: false,
    ...(timeZone ? { timeZone } : {}),
  }).format(new Date(at));
}

/** The openings of the lines this module writes around message text. */
const OUR_HEADER =
  /^([\t ]*)\[(?=[\t ]*(?:message from|recent messages in this group|[\p{L}]+ attached:))/gimu;

/** Message text verbatim, except that a line imitating one of our headers is escaped. */
export function quoteText(text: string): string {
  return text.replace(OUR_HEADER, '$1\\[');
}

function body(m: PromptMessage): string {
  return [quoteText(m.text.trim()), ...mediaLines(m.media)].filter(Boolean).join('\n');
}

/**
 * How many of `messages` (from the first) one prompt takes while it stays within `maxChars`: at
 * least one, unless the first alone is too long, which is `too_long` (refused, never cut: a cut
 * instruction can mean something else than what was sent, and the agent would act on half of it).
 */
export function fitPrompt(
  messages: readonly PromptMessage[],
  maxChars: number,
  opts: PromptOptions = {},
): { type: 'fits'; count: number; prompt: string } | { type: 'too_long'; chars: number } {
  const first = buildPrompt(messages.slice(0, 1), opts);
  if (first.length > maxChars) return { type: 'too_long', chars: first.length };
  let best = { count: Math.min(1, messages.length), prompt: first };
  // A prompt only grows with each message taken: binary search, so thousands of waiting messages
  // cost a dozen builds, not one per message.
  let lo = 2;
  let hi = messages.length;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const prompt = buildPrompt(messages.slice(0, mid), opts);
    if (prompt.length <= maxChars) {
      best = { count: mid, prompt };
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return { type: 'fits', ...best };
}

/**
 * One message: its text (group messages name the sender) plus attachment lines. Several messages
 * (collected while the agent was busy): each under a header with sender and time, in arrival order.
 * Group context (recent messages that did not trigger a run) comes first, once.
 */
export function buildPrompt(messages: readonly PromptMessage[], opts: PromptOptions = {}): string {
  const context = messages
    .map((m) => (m.context ? quoteText(m.context.trim()) : undefined))
    .filter((c): c is string => Boolean(c))
    .join('\n');
  const head = context ? [`[Recent messages in this group, for context]\n${context}`, ''] : [];
  if (messages.length === 1) {
    const m = messages[0] as PromptMessage;
    const text = body(m);
    return [...head, m.isGroup ? `[Message from ${who(m)}]\n${text}` : text].join('\n');
  }
  const parts = messages.map(
    (m) => `[Message from ${who(m)} at ${time(m.sentAt, opts.timeZone)}]\n${body(m)}`,
  );
  return [...head, ...parts.flatMap((p, i) => (i === 0 ? [p] : ['', p]))].join('\n');
}

// HEARTBEAT_OK handling: the agent answers with the token when nothing needs the owner, and the
// relay stays quiet. Only the edges of a reply are looked at, so a reply that merely mentions the
// token in a sentence is delivered untouched (openclaw#20012: the token leaking into chats, and an
// empty "ack" being sent every cycle, are the two failures this prevents).

export const HEARTBEAT_TOKEN = 'HEARTBEAT_OK';

export type TokenDecision =
  /** Nothing to send: the reply was empty or only the token. */
  | { type: 'silent' }
  /** Send `text`; `stripped` says whether a token was removed from an edge. */
  | { type: 'reply'; text: string; stripped: boolean };

// Markdown emphasis or code marks, or quotes, an agent may wrap the token in: **X**, _X_, `X`,
// ~~X~~, "X", “X”.
const WRAP = '[*_`~"\'“”‘’]{0,3}';
// The token, optionally wrapped, with an optional full stop or exclamation mark inside or outside
// the wrapping ("HEARTBEAT_OK.", "**HEARTBEAT_OK.**", "**HEARTBEAT_OK**.").
const TOKEN = `${WRAP}${HEARTBEAT_TOKEN}[.!]?${WRAP}[.!]?`;
// At the start: the token must end at a boundary (so "HEARTBEAT_OKAY" is left alone); a separator
// right after it (": ", " - ", " — ") goes with it, so "HEARTBEAT_OK: CI is red" sends "CI is red".
const AT_START = new RegExp(`^${TOKEN}(?=$|[\\s:;,\\-–—])[\\s:;,\\-–—]*`, 'i');
// At the end: the token must start at a boundary (line start or whitespace); a separator right
// before it goes with it, so "CI is red — HEARTBEAT_OK" sends "CI is red".
const AT_END = new RegExp(`(?:^|\\s)[\\s:;,\\-–—]*${TOKEN}$`, 'i');

/** Strips the token from the start and end of a reply (repeatedly) and decides whether to send. */
export function stripHeartbeatToken(reply: string): TokenDecision {
  // A reply that is only the token inside a code fence or a quote block is the token too; anything
  // more inside such a block is left as the agent wrote it.
  const inner = unwrapBlock(reply.trim());
  if (inner !== undefined && edgeStrip(inner).text === '') return { type: 'silent' };
  const { text, stripped } = edgeStrip(reply);
  if (text === '') return { type: 'silent' };
  return { type: 'reply', text, stripped };
}

/** The token removed from both edges until none is left; `text` is '' when nothing worth sending remains. */
function edgeStrip(reply: string): { text: string; stripped: boolean } {
  let text = reply.trim();
  let stripped = false;
  for (;;) {
    const next = text.replace(AT_START, '').replace(AT_END, '').trim();
    if (next === text) break;
    stripped = true;
    text = next;
  }
  return { text: text === '' || isOnlyMarks(text) ? '' : text, stripped };
}

/** Leftover emphasis, quote marks or punctuation alone ("**", ".", ">") is not a message. */
function isOnlyMarks(text: string): boolean {
  return /^[\s*_`~"'“”‘’>.!:;,\-–—]*$/.test(text);
}

/** The content of a reply that is one fenced code block or one quote block, else undefined. */
function unwrapBlock(text: string): string | undefined {
  const fence = /^```[\w-]*[ \t]*\n([\s\S]*?)\n[ \t]*```$/.exec(text);
  if (fence) return fence[1];
  const lines = text.split('\n');
  if (lines.every((l) => l.startsWith('>'))) return lines.map((l) => l.replace(/^>[ \t]?/, '')).join('\n');
  return undefined;
}

export type Delivery = { type: 'nothing' } | { type: 'deliver'; text: string; media: string[] };

/** What a heartbeat or schedule reply becomes: attachments still go out when the text was only the token. */
export function decideDelivery(text: string, media: readonly string[]): Delivery {
  const d = stripHeartbeatToken(text);
  const body = d.type === 'reply' ? d.text : '';
  if (body === '' && media.length === 0) return { type: 'nothing' };
  return { type: 'deliver', text: body, media: [...media] };
}

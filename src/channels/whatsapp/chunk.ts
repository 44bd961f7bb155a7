// Pure: splits text that is still longer than one WhatsApp message. The core already chunks at the
// channel's textLimit; this is the channel's own guard (e.g. for `agentwire send`). Splits prefer
// paragraph, then line, then word boundaries, never cut a surrogate pair, and close and reopen a
// code fence that has to be split so each part renders as code.

const FENCE = '```';

function cutPoint(text: string, limit: number): number {
  const window = text.slice(0, limit + 1);
  for (const sep of ['\n\n', '\n', ' ']) {
    const i = window.lastIndexOf(sep, limit);
    if (i > limit / 2) return i + sep.length;
  }
  let i = limit;
  const code = text.charCodeAt(i - 1);
  if (code >= 0xd800 && code <= 0xdbff) i -= 1; // keep a surrogate pair together
  return i;
}

const insideFence = (text: string): boolean => (text.split(FENCE).length - 1) % 2 === 1;

export function splitText(text: string, limit: number): string[] {
  if (text.length <= limit) return [text];
  const parts: string[] = [];
  let rest = text;
  while (rest.length > limit) {
    // Reserve room for a closing fence in case the cut lands inside a code block.
    const cut = cutPoint(rest, limit - FENCE.length - 1);
    let head = rest.slice(0, cut);
    rest = rest.slice(cut);
    if (insideFence(head)) {
      head = `${head.replace(/\n?$/, '\n')}${FENCE}`;
      rest = `${FENCE}\n${rest}`;
    }
    if (head.trim()) parts.push(head.trimEnd());
  }
  if (rest.trim()) parts.push(rest);
  return parts;
}

// Pure: one reply's Markdown → the messages Telegram gets, each at most 4,096 characters AFTER
// formatting (HTML tags and escapes make text longer), with the plain source of each kept for the
// fallback when Telegram refuses the formatting. Cuts go through the core's one splitter; a piece
// whose HTML still runs over is cut again, smaller, until it fits.
import { chunkText } from '../../core/chunk.js';
import { escapeHtml, markdownToTelegramHtml } from './format.js';

/** Telegram's limit for one text message (and 1,024 for a caption). */
export const TELEGRAM_TEXT_LIMIT = 4096;
export const TELEGRAM_CAPTION_LIMIT = 1024;

export interface Rendered {
  html: string;
  plain: string;
}

export function render(markdown: string, limit = TELEGRAM_TEXT_LIMIT): Rendered[] {
  const out: Rendered[] = [];
  const place = (piece: string, pieceLimit: number): void => {
    const html = markdownToTelegramHtml(piece);
    if (html.length <= limit) {
      out.push({ html, plain: piece });
      return;
    }
    // Shrink in proportion to how much formatting grew the text, and at least by one eighth, so this
    // ends: at 1 character per piece escaping alone (`&` → `&amp;`) stays far under the limit.
    const smaller = Math.max(
      1,
      Math.min(Math.floor((pieceLimit * limit) / html.length), pieceLimit - Math.ceil(pieceLimit / 8)),
    );
    for (const p of chunkText(piece, smaller)) place(p, smaller);
  };
  for (const piece of chunkText(markdown, limit)) place(piece, limit);
  return out;
}

/**
 * Text shown exactly (OutboundItem `code`): never read as Markdown, each piece one `<pre>` block.
 * Escaping makes a character at most 5 (`&amp;`), so pieces of a fifth of the limit always fit.
 */
export function renderCode(text: string, limit = TELEGRAM_TEXT_LIMIT): Rendered[] {
  const size = Math.floor((limit - '<pre></pre>'.length) / 5);
  const out: Rendered[] = [];
  let at = 0;
  while (at < text.length) {
    // Never between the two halves of a surrogate pair.
    let end = Math.min(text.length, at + size);
    if (end < text.length && /[\ud800-\udbff]/.test(text[end - 1] ?? '')) end--;
    const piece = text.slice(at, end);
    out.push({ html: `<pre>${escapeHtml(piece)}</pre>`, plain: piece });
    at = end;
  }
  return out;
}

// Pure: one reply's Markdown → the mrkdwn messages Slack gets, each at most SLACK_TEXT_LIMIT characters
// AFTER conversion (escapes make text longer). Cuts go through the core's one splitter (core/chunk.ts);
// a piece whose mrkdwn still runs over is cut again, smaller, until it fits.
import { chunkText } from '../../core/chunk.js';
import { escapeMrkdwn, markdownToMrkdwn } from './format.js';

/**
 * Slack truncates a message's text past 40,000 characters and advises keeping it under 4,000
 * (api.slack.com/methods/chat.postMessage#truncating); longer texts also read badly on a phone.
 */
export const SLACK_TEXT_LIMIT = 4000;

export function render(markdown: string, limit = SLACK_TEXT_LIMIT): string[] {
  const out: string[] = [];
  const place = (piece: string, pieceLimit: number): void => {
    const m = markdownToMrkdwn(piece);
    if (m.length <= limit) {
      if (m.trim()) out.push(m);
      return;
    }
    // Shrink in proportion to how much conversion grew the text, at least by an eighth, so this ends.
    const smaller = Math.max(
      1,
      Math.min(Math.floor((pieceLimit * limit) / m.length), pieceLimit - Math.ceil(pieceLimit / 8)),
    );
    for (const p of chunkText(piece, smaller)) place(p, smaller);
  };
  for (const piece of chunkText(markdown, limit)) place(piece, limit);
  return out;
}

/**
 * Text shown exactly (OutboundItem `code`): each piece one code block, escaped. A ``` inside would
 * end the block, so its backticks become look-alikes. Escaping makes a character at most 5 (`&amp;`).
 */
export function renderCode(text: string, limit = SLACK_TEXT_LIMIT): string[] {
  const size = Math.floor((limit - 8) / 5);
  const safe = text.replace(/```/g, 'ˋˋˋ');
  const out: string[] = [];
  let at = 0;
  while (at < safe.length) {
    let end = Math.min(safe.length, at + size);
    if (end < safe.length && /[\ud800-\udbff]/.test(safe[end - 1] ?? '')) end--;
    out.push(`\`\`\`\n${escapeMrkdwn(safe.slice(at, end))}\n\`\`\``);
    at = end;
  }
  return out;
}

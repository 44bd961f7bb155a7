// Pure: send_card's rules and its text form. A card is a title, a body and a few buttons; where the
// channel has buttons (Telegram's inline keyboard) they are tapped, elsewhere the card is this text
// with a numbered list and the person answers with the number. Either way the answer is the chat's
// next message. Table-tested in test/tools/card.test.ts.
import type { Card } from './types.js';

/** The most buttons one card may carry: more is a menu nobody reads on a phone. */
export const MAX_CARD_BUTTONS = 10;
/** The longest button label (Telegram shows about this much on one button). */
export const MAX_BUTTON_CHARS = 64;

const LABEL_START = /^[\p{L}\p{N}\p{Extended_Pictographic}]/u;

export type CardCheck = { ok: true; card: Card } | { ok: false; error: string };

export function checkCard(title: string, body: string, buttons: readonly string[]): CardCheck {
  const t = title.trim();
  if (!t) return { ok: false, error: 'the card needs a title' };
  const labels = buttons.map((b) => b.trim());
  if (labels.length === 0) return { ok: false, error: 'a card needs at least one button' };
  if (labels.length > MAX_CARD_BUTTONS)
    return {
      ok: false,
      error: `a card has at most ${MAX_CARD_BUTTONS} buttons; you gave ${labels.length}. Offer fewer, or ask in words.`,
    };
  const empty = labels.findIndex((l) => !l);
  if (empty >= 0) return { ok: false, error: `button ${empty + 1} has no label` };
  const long = labels.findIndex((l) => [...l].length > MAX_BUTTON_CHARS);
  if (long >= 0)
    return { ok: false, error: `button ${long + 1} is longer than ${MAX_BUTTON_CHARS} characters` };
  // A tap says the label as the person's message: a label like "/new" would be a chat command the
  // agent put in the person's mouth.
  const odd = labels.findIndex((l) => !LABEL_START.test(l));
  if (odd >= 0)
    return { ok: false, error: `button ${odd + 1} must start with a letter, a digit or an emoji` };
  // Two buttons alike would give the agent the same answer for two choices.
  const dup = labels.findIndex((l, i) => labels.indexOf(l) !== i);
  if (dup >= 0) return { ok: false, error: `button ${dup + 1} repeats "${labels[dup]}"` };
  return { ok: true, card: { title: t, body: body.trim(), buttons: labels } };
}

/** The card where there are no buttons: title, body, numbered choices, and how to answer. */
export function cardText(card: Card): string {
  const lines = card.buttons.map((b, i) => `${i + 1}. ${b}`);
  // Plain: the same text must read well on SMS, where Markdown is shown as typed.
  return [card.title, ...(card.body ? [card.body] : []), lines.join('\n'), 'Answer with a number.'].join(
    '\n\n',
  );
}

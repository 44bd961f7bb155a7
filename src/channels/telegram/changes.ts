// Cards with buttons, and changes to messages already in a Telegram chat: a new text for one the bot sent (editMessageText,
// HTML first and plain when Telegram cannot parse it, as a send), an emoji reaction on any message
// of the chat (setMessageReaction), and deleting one the bot sent (deleteMessage). Errors are values, mapped like a send's (errors.ts).
import { type Card, NOT_CONNECTED, type SendResult } from '../../core/types.js';
import type { BotApi } from './api.js';
import { isParseError, sendFailure } from './errors.js';
import { escapeHtml } from './format.js';
import { render } from './render.js';

const NOT_OPEN: SendResult = {
  ok: false,
  error: 'Telegram is not connected',
  retryable: true,
  code: NOT_CONNECTED,
};

/**
 * The Bot API's message id in what the relay holds: a sent message's id as `send` returned it
 * (`500`), or a received one's inbox id, which carries its chat (`42:77`, inbound.ts) because
 * Telegram's ids are unique per chat only. A prefix of another chat was never this chat's message.
 */
export function messageId(chatId: string, id: string): number | undefined {
  const m = /^(?:(-?\d{1,20}):)?([1-9]\d{0,15})$/.exec(id);
  if (!m || (m[1] !== undefined && m[1] !== chatId)) return undefined;
  return Number(m[2]);
}

const badId: SendResult = { ok: false, error: 'not a Telegram message id', retryable: false, code: 'bad_id' };

export async function editText(
  api: BotApi | undefined,
  chatId: string,
  providerId: string,
  markdown: string,
): Promise<SendResult> {
  if (!api) return NOT_OPEN;
  const id = messageId(chatId, providerId);
  if (id === undefined) return badId;
  // One message only: the tool refuses a text longer than Telegram's limit before it is stored.
  const piece = render(markdown)[0];
  if (!piece?.plain.trim()) return { ok: false, error: 'empty message', retryable: false, code: 'empty' };
  try {
    await api.editMessageText(chatId, id, piece.html, { parse_mode: 'HTML' });
    return { ok: true, providerId };
  } catch (err) {
    if (isUnchanged(err)) return { ok: true, providerId };
    if (!isParseError(err)) return sendFailure(err);
  }
  try {
    await api.editMessageText(chatId, id, piece.plain);
    return { ok: true, providerId };
  } catch (err) {
    return isUnchanged(err) ? { ok: true, providerId } : sendFailure(err);
  }
}

export async function react(
  api: BotApi | undefined,
  chatId: string,
  providerId: string,
  emoji: string,
): Promise<SendResult> {
  if (!api) return NOT_OPEN;
  const id = messageId(chatId, providerId);
  if (id === undefined) return badId;
  try {
    // grammY types `emoji` as the Bot API's fixed list; an emoji outside it is Telegram's 400 to give.
    await api.setMessageReaction(chatId, id, [{ type: 'emoji', emoji } as never]);
    return { ok: true, providerId };
  } catch (err) {
    return sendFailure(err);
  }
}

/**
 * Deletes a message the bot sent (deleteMessage). One that is gone already (a delete resent after a
 * crash, or the person deleted it) counts as deleted: the outcome asked for holds.
 */
export async function deleteMessage(
  api: BotApi | undefined,
  chatId: string,
  providerId: string,
): Promise<SendResult> {
  if (!api) return NOT_OPEN;
  const id = messageId(chatId, providerId);
  if (id === undefined) return badId;
  try {
    await api.deleteMessage(chatId, id);
    return { ok: true, providerId };
  } catch (err) {
    return isGone(err) ? { ok: true, providerId } : sendFailure(err);
  }
}

const isGone = (err: unknown): boolean =>
  /message to delete not found/i.test((err as { description?: string })?.description ?? '');

/** The same text again (an edit resent after a crash): Telegram refuses it, but the message says it. */
const isUnchanged = (err: unknown): boolean =>
  /message is not modified/i.test((err as { description?: string })?.description ?? '');

/**
 * A card: its title in bold and its body as one message, with an inline keyboard of one button a
 * row. A button's `callback_data` is its number; the label a tap stands for is read back from the
 * message the tap comes with (normalize.ts), so nothing about the card has to be kept here.
 */
export async function sendCard(api: BotApi | undefined, chatId: string, card: Card): Promise<SendResult> {
  if (!api) return NOT_OPEN;
  const text = `<b>${escapeHtml(card.title)}</b>${card.body ? `\n\n${render(card.body)[0]?.html ?? ''}` : ''}`;
  const plain = card.body ? `${card.title}\n\n${card.body}` : card.title;
  const reply_markup = {
    inline_keyboard: card.buttons.map((label, i) => [{ text: label, callback_data: String(i + 1) }]),
  };
  try {
    const m = await api.sendMessage(chatId, text.slice(0, 4096), { parse_mode: 'HTML', reply_markup });
    return { ok: true, providerId: String(m.message_id) };
  } catch (err) {
    if (!isParseError(err)) return sendFailure(err);
  }
  try {
    const m = await api.sendMessage(chatId, plain.slice(0, 4096), { reply_markup });
    return { ok: true, providerId: String(m.message_id) };
  } catch (err) {
    return sendFailure(err);
  }
}

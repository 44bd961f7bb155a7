// Pure: one Bot API update → the fields the gate and the inbound pipeline need, or why it is ignored.
// Only new messages from people count (edits, channel posts, service messages and bots are not
// requests). Telegram's entity offsets are UTF-16 code units, the same as JavaScript string indices.
import type { Message, MessageEntity, Update } from 'grammy/types';
import type { InboundMediaKind } from '../../core/types.js';

export interface Me {
  id: number;
  username: string;
}

/** A file Telegram holds for us; fetched with getFile before the message is stored. */
export interface FileRef {
  kind: InboundMediaKind;
  fileId: string;
  /** As Telegram reports it; absent for some old files (then the download itself is capped). */
  sizeBytes?: number;
  mimeType: string;
  fileName?: string;
  /** Every photo size was over the cap: the smallest one's size, for the notice. */
  tooLarge?: boolean;
}

export interface NormalizedMessage {
  updateId: number;
  chatId: string;
  isGroup: boolean;
  senderId: string;
  senderName?: string;
  messageId: number;
  text: string;
  /** The message names the bot: an @mention, a text mention, or a /command@bot. */
  mentionsBot: boolean;
  /** The message answers one of the bot's own messages. */
  repliesToBot: boolean;
  media?: FileRef;
  at: number;
  /** A tap on a button of one of the bot's cards: the callback query's id (its own dedupe key). */
  tapId?: string;
}

export type Classified = { type: 'message'; msg: NormalizedMessage } | { type: 'ignore'; reason: string };

const entityText = (text: string, e: MessageEntity): string => text.slice(e.offset, e.offset + e.length);

function addressesBot(text: string, entities: readonly MessageEntity[] | undefined, me: Me): boolean {
  const name = `@${me.username}`.toLowerCase();
  for (const e of entities ?? []) {
    if (e.type === 'mention' && entityText(text, e).toLowerCase() === name) return true;
    if (e.type === 'text_mention' && e.user.id === me.id) return true;
    if (e.type === 'bot_command' && entityText(text, e).toLowerCase().endsWith(name)) return true;
  }
  return false;
}

/**
 * `/new@our_bot rest` → `/new rest`: the relay's command parser knows no bot names. `@our_bot 1` →
 * `1`: in a group a person addresses the bot by a mention, which is no part of what they say (so a
 * bare number still answers an approval). And `/start`, which every Telegram app sends when a person
 * first opens the bot, becomes `/help` rather than a prompt.
 */
function commandText(raw: string, me: Me): string {
  const lead = /^@([A-Za-z0-9_]{3,64})[\s,:]+(?=\S)/.exec(raw);
  const text = lead && lead[1]!.toLowerCase() === me.username.toLowerCase() ? raw.slice(lead[0].length) : raw;
  const m = /^(\/[A-Za-z0-9_]{1,32})@([A-Za-z0-9_]{3,64})(?=\s|$)/.exec(text);
  const own = m && m[2]!.toLowerCase() === me.username.toLowerCase() ? m[1]! + text.slice(m[0].length) : text;
  return /^\/start(?:\s|$)/i.test(own) ? '/help' : own;
}

/** The attachment of a message, if any: the largest photo size that fits under `maxBytes`. */
export function fileRefOf(m: Message, maxBytes: number): FileRef | undefined {
  if (m.photo?.length) {
    const sizes = [...m.photo].sort((a, b) => (b.file_size ?? 0) - (a.file_size ?? 0));
    const fit = sizes.find((p) => p.file_size === undefined || p.file_size <= maxBytes);
    const pick = fit ?? sizes[sizes.length - 1]!;
    return {
      kind: 'image',
      fileId: pick.file_id,
      mimeType: 'image/jpeg',
      ...(pick.file_size !== undefined && { sizeBytes: pick.file_size }),
      ...(!fit && { tooLarge: true }),
    };
  }
  const doc = (
    kind: InboundMediaKind,
    f: { file_id: string; file_size?: number; mime_type?: string; file_name?: string },
    mime: string,
  ): FileRef => ({
    kind,
    fileId: f.file_id,
    mimeType: f.mime_type ?? mime,
    ...(f.file_size !== undefined && { sizeBytes: f.file_size }),
    ...(f.file_name !== undefined && { fileName: f.file_name }),
  });
  if (m.voice) return doc('voice', m.voice, 'audio/ogg');
  if (m.audio) return doc('audio', m.audio, 'audio/mpeg');
  if (m.video) return doc('video', m.video, 'video/mp4');
  if (m.video_note) return doc('video', m.video_note, 'video/mp4');
  if (m.animation) return doc('video', m.animation, 'video/mp4');
  if (m.document) return doc('document', m.document, 'application/octet-stream');
  return undefined;
}

/**
 * A tap on a card's button (changes.ts sendCard): the person said the button's label, in reply to the
 * bot. Only a button of the bot's own message counts, and its label is read from that message, so
 * a forged `data` names nothing.
 */
function classifyTap(q: NonNullable<Update['callback_query']>, me: Me, now: number): Classified {
  if (q.from.is_bot) return { type: 'ignore', reason: 'from_a_bot' };
  const m = q.message;
  if (!m || !('chat' in m) || m.date === 0) return { type: 'ignore', reason: 'tap_without_message' };
  if (!('from' in m) || m.from?.id !== me.id) return { type: 'ignore', reason: 'tap_not_on_our_card' };
  const rows = 'reply_markup' in m ? (m.reply_markup?.inline_keyboard ?? []) : [];
  const label = rows.flat().find((b) => 'callback_data' in b && b.callback_data === q.data)?.text;
  if (!label) return { type: 'ignore', reason: 'unknown_button' };
  const name = [q.from.first_name, q.from.last_name].filter(Boolean).join(' ');
  return {
    type: 'message',
    msg: {
      updateId: 0,
      chatId: String(m.chat.id),
      isGroup: m.chat.type === 'group' || m.chat.type === 'supergroup',
      senderId: String(q.from.id),
      ...(name && { senderName: name }),
      messageId: m.message_id,
      text: label,
      mentionsBot: true,
      repliesToBot: true,
      at: now,
      tapId: q.id,
    },
  };
}

export function classify(update: Update, me: Me, maxBytes: number, now = Date.now()): Classified {
  if (update.callback_query) {
    const c = classifyTap(update.callback_query, me, now);
    return c.type === 'message' ? { type: 'message', msg: { ...c.msg, updateId: update.update_id } } : c;
  }
  const m = update.message;
  if (!m) return { type: 'ignore', reason: 'not_a_new_message' };
  if (!m.from) return { type: 'ignore', reason: 'no_sender' };
  if (m.from.is_bot) return { type: 'ignore', reason: 'from_a_bot' };
  const raw = m.text ?? m.caption ?? '';
  const entities = m.entities ?? m.caption_entities;
  const media = fileRefOf(m, maxBytes);
  if (!raw.trim() && !media) return { type: 'ignore', reason: 'no_content' };
  const isGroup = m.chat.type === 'group' || m.chat.type === 'supergroup';
  const name = [m.from.first_name, m.from.last_name].filter(Boolean).join(' ');
  return {
    type: 'message',
    msg: {
      updateId: update.update_id,
      chatId: String(m.chat.id),
      isGroup,
      senderId: String(m.from.id),
      ...(name && { senderName: name }),
      messageId: m.message_id,
      text: commandText(raw, me),
      mentionsBot: addressesBot(raw, entities, me),
      repliesToBot: m.reply_to_message?.from?.id === me.id,
      ...(media && { media }),
      at: m.date * 1000,
    },
  };
}

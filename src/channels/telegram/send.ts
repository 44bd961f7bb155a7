// Sends one approved OutboundItem. Text goes as HTML in pieces of at most 4,096 characters, each sent
// plain when Telegram refuses its formatting. A chat that blocked the bot or removed it (403) is
// marked, and every later send to it ends at once without calling Telegram, until that chat writes
// to the bot again; the 403 is logged once at warn, with the chat id masked.
import { InputFile } from 'grammy';
import { NOT_CONNECTED, type OutboundItem, type SendResult } from '../../core/types.js';
import { type Logger, maskId } from '../../log.js';
import { sendTextOrFile } from '../send-item.js';
import type { BotApi } from './api.js';
import { isParseError, sendFailure } from './errors.js';
import { failedNotice, methodFor, openForUpload, oversizeNotice, type SendMethod } from './media-out.js';
import { render, renderCode, TELEGRAM_CAPTION_LIMIT } from './render.js';
import type { TelegramState } from './state.js';

export interface SenderDeps {
  api: () => BotApi | undefined;
  state: TelegramState;
  log: Logger;
  maxFileBytes: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** Waits before trying the rest of a text again when its first part is already out. */
const CONTINUATION_WAITS_MS = [1_000, 3_000, 10_000];
/** A longer rate limit than this is left to the outbox (the first part is then sent again). */
const MAX_CONTINUATION_WAIT_MS = 60_000;
const realSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());

const NO_PREVIEW = { link_preview_options: { is_disabled: true } } as const;
const BLOCKED = {
  ok: false,
  error: 'this Telegram chat blocked the bot or removed it',
  retryable: false,
  code: 'blocked',
} as const satisfies SendResult;

export class Sender {
  constructor(private readonly deps: SenderDeps) {}

  async send(chatId: string, item: OutboundItem): Promise<SendResult> {
    const api = this.deps.api();
    if (!api) return { ok: false, error: 'Telegram is not connected', retryable: true, code: NOT_CONNECTED };
    if (await this.deps.state.isBlocked(chatId)) return BLOCKED;
    const r = await this.dispatch(api, chatId, item);
    if (!r.ok && r.code === 'blocked') {
      await this.deps.state.setBlocked(chatId, true, (this.deps.now ?? Date.now)());
      this.deps.log.warn(
        { chat: maskId(chatId) },
        'telegram chat blocked the bot or removed it: sends to it stop',
      );
      // Said in the same words as every later send to it, with Telegram's own after them.
      return { ...BLOCKED, error: `${BLOCKED.error} (${r.error})` };
    }
    return r;
  }

  private dispatch(api: BotApi, chatId: string, item: OutboundItem): Promise<SendResult> {
    return sendTextOrFile(item, {
      text: (text, code) => this.sendText(api, chatId, text, code),
      file: (file) => this.sendFile(api, chatId, file),
    });
  }

  /** `code`: the text exactly, as code, never read as Markdown. */
  async sendText(api: BotApi, chatId: string, markdown: string, code?: boolean): Promise<SendResult> {
    let last: SendResult = { ok: false, error: 'empty message', retryable: false, code: 'empty' };
    let sent = 0;
    for (const piece of code ? renderCode(markdown) : render(markdown)) {
      if (!piece.plain.trim()) continue;
      const once = () =>
        attempt(
          () => api.sendMessage(chatId, piece.html, { parse_mode: 'HTML', ...NO_PREVIEW }),
          () => api.sendMessage(chatId, piece.plain, NO_PREVIEW),
        );
      last = await once();
      // The outbox retries a whole item: once part of it is out, a transient failure of the rest is
      // waited out here (briefly), or the parts already sent would be sent again.
      for (let i = 0; !last.ok && last.retryable && sent > 0 && i < CONTINUATION_WAITS_MS.length; i++) {
        const wait = Math.max(CONTINUATION_WAITS_MS[i]!, last.retryAfterMs ?? 0);
        if (wait > MAX_CONTINUATION_WAIT_MS) break;
        await (this.deps.sleep ?? realSleep)(wait);
        last = await once();
      }
      if (!last.ok) return last;
      sent++;
    }
    return last;
  }

  private async sendFile(
    api: BotApi,
    chatId: string,
    item: Extract<OutboundItem, { type: 'file' }>,
  ): Promise<SendResult> {
    const opened = await openForUpload(item.path, this.deps.maxFileBytes);
    if (!opened.ok) {
      this.deps.log.warn({ error: opened.error }, 'telegram attachment not sent');
      const notice = opened.tooLarge
        ? oversizeNotice(item.fileName, opened.tooLarge, this.deps.maxFileBytes)
        : failedNotice(item.fileName);
      return this.sendText(api, chatId, notice);
    }
    opened.stream.destroy();
    const method = methodFor(item.mimeType, opened.sizeBytes);
    const caption = item.caption?.trim() ? render(item.caption, TELEGRAM_CAPTION_LIMIT) : [];
    const inline = caption.length === 1 ? caption[0] : undefined;
    const upload = async (m: SendMethod, withCaption: 'html' | 'plain' | 'none') => {
      const again = await openForUpload(item.path, this.deps.maxFileBytes);
      if (!again.ok) throw new Error(`file changed: ${again.error}`);
      const file = new InputFile(again.stream, item.fileName);
      const other =
        inline && withCaption === 'html'
          ? { caption: inline.html, parse_mode: 'HTML' as const }
          : inline && withCaption === 'plain'
            ? { caption: inline.plain }
            : {};
      return api.raw[m]({ chat_id: chatId, [fieldOf(m)]: file, ...other } as never) as Promise<{
        message_id: number;
      }>;
    };
    let sent = await attempt(
      () => upload(method, 'html'),
      () => upload(method, 'plain'),
    );
    // A picture Telegram will not take as a photo (odd dimensions, say) still goes, as a file.
    if (!sent.ok && method === 'sendPhoto' && !sent.retryable && sent.code === '400') {
      sent = await attempt(
        () => upload('sendDocument', 'html'),
        () => upload('sendDocument', 'plain'),
      );
    }
    if (!sent.ok) {
      if (sent.retryable || sent.code === 'blocked') return sent;
      this.deps.log.warn({ error: sent.error }, 'telegram attachment upload failed');
      return this.sendText(api, chatId, failedNotice(item.fileName));
    }
    // A caption over 1,024 characters follows the file as text.
    if (item.caption?.trim() && !inline) {
      // The file is out: failing the item now would make the outbox send the file again.
      const after = await this.sendText(api, chatId, item.caption);
      if (!after.ok) this.deps.log.warn({ error: after.error }, 'telegram caption after a file not sent');
    }
    return sent;
  }
}

const fieldOf = (m: SendMethod): string =>
  ({
    sendPhoto: 'photo',
    sendVideo: 'video',
    sendVoice: 'voice',
    sendAudio: 'audio',
    sendDocument: 'document',
  })[m];

/** One call, once more without formatting if Telegram could not parse it; never throws. */
async function attempt(
  formatted: () => Promise<{ message_id: number }>,
  plain: () => Promise<{ message_id: number }>,
): Promise<SendResult> {
  try {
    return { ok: true, providerId: String((await formatted()).message_id) };
  } catch (err) {
    if (!isParseError(err)) return sendFailure(err);
  }
  try {
    return { ok: true, providerId: String((await plain()).message_id) };
  } catch (err) {
    return sendFailure(err);
  }
}

// Sends one approved OutboundItem: text in pieces of at most 2,000 characters (core/chunk.ts, the one
// splitter, again after formatting, which can lengthen a text), a file by multipart upload, every
// message with `allowed_mentions: {parse: []}` so nothing an agent writes pings anyone. Rate limits
// are the REST client's: its per-route buckets queue and wait the short ones, and a long one comes
// back as retryable with its wait (errors.ts). A channel the bot may not post in (403) is marked, and
// every later send to it ends at once without calling Discord, until someone writes there again;
// the 403 is logged once at warn, with the chat id masked.
import type { API } from '@discordjs/core';
import { chunkText } from '../../core/chunk.js';
import { NOT_CONNECTED, type OutboundItem, type SendResult } from '../../core/types.js';
import { type Logger, maskId } from '../../log.js';
import { sendTextOrFile } from '../send-item.js';
import { type Failure, FORBIDDEN, isUnknownMessage, sendFailure } from './errors.js';
import { toDiscord, toDiscordCode } from './format.js';
import { readForUpload, uploadName } from './media-out.js';
import type { DiscordState } from './state.js';

export const DISCORD_TEXT_LIMIT = 2000;
/** Nothing in a message pings: not @everyone, not a role, not a person, not the one replied to. */
const noPings = (): { allowed_mentions: { parse: [] } } => ({ allowed_mentions: { parse: [] } });
/** Waits before trying the rest of a text again when its first part is already out. */
const CONTINUATION_WAITS_MS = [1_000, 3_000, 10_000];
const realSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());

export interface SenderDeps {
  api: () => API | undefined;
  state: DiscordState;
  log: Logger;
  maxFileBytes: number;
  /** A channel was found closed to the bot (status shows it). */
  onForbidden?: (chatId: string, error: string) => void;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** `dm:<user id>` is a person; anything else a channel or thread id. */
export const dmUser = (chatId: string): string | undefined =>
  chatId.startsWith('dm:') ? chatId.slice(3) : undefined;

export class Sender {
  constructor(private readonly deps: SenderDeps) {}

  async send(chatId: string, item: OutboundItem): Promise<SendResult> {
    const api = this.deps.api();
    if (!api) return { ok: false, error: 'Discord is not connected', retryable: true, code: NOT_CONNECTED };
    const closed = await this.deps.state.forbidden(chatId);
    if (closed) return stopped(closed.error);
    let channelId: string;
    try {
      channelId = await this.channelOf(api, chatId);
    } catch (err) {
      return this.after(chatId, sendFailure(err));
    }
    return this.after(chatId, await this.dispatch(api, channelId, item));
  }

  /**
   * A new text for a message the bot sent (PATCH /channels/{id}/messages/{id}), its id as `send`
   * returned it. One message: a longer text is cut to Discord's limit, never split.
   */
  async edit(chatId: string, messageId: string, markdown: string): Promise<SendResult> {
    if (!/^\d{17,20}$/.test(messageId))
      return { ok: false, error: 'not a Discord message id', retryable: false, code: 'bad_id' };
    const api = this.deps.api();
    if (!api) return { ok: false, error: 'Discord is not connected', retryable: true, code: NOT_CONNECTED };
    const closed = await this.deps.state.forbidden(chatId);
    if (closed) return stopped(closed.error);
    const content = chunkText(toDiscord(markdown), { limit: DISCORD_TEXT_LIMIT, fences: true })[0];
    if (!content?.trim()) return { ok: false, error: 'empty message', retryable: false, code: 'empty' };
    try {
      const channelId = await this.channelOf(api, chatId);
      const r = await post(() => api.channels.editMessage(channelId, messageId, { content, ...noPings() }));
      return this.after(chatId, r.ok ? { ok: true, providerId: messageId } : r);
    } catch (err) {
      return this.after(chatId, sendFailure(err));
    }
  }

  /**
   * Deletes a message the bot sent (DELETE /channels/{id}/messages/{id}). One already gone (Unknown
   * Message: a delete resent after a crash, or a moderator removed it) counts as deleted.
   */
  async delete(chatId: string, messageId: string): Promise<SendResult> {
    if (!/^\d{17,20}$/.test(messageId))
      return { ok: false, error: 'not a Discord message id', retryable: false, code: 'bad_id' };
    const api = this.deps.api();
    if (!api) return { ok: false, error: 'Discord is not connected', retryable: true, code: NOT_CONNECTED };
    const closed = await this.deps.state.forbidden(chatId);
    if (closed) return stopped(closed.error);
    try {
      const channelId = await this.channelOf(api, chatId);
      await api.channels.deleteMessage(channelId, messageId);
      return { ok: true, providerId: messageId };
    } catch (err) {
      if (isUnknownMessage(err)) return { ok: true, providerId: messageId };
      return this.after(chatId, sendFailure(err));
    }
  }

  /** The channel a chat id posts to: a DM channel is opened once per person and remembered. */
  async channelOf(api: API, chatId: string): Promise<string> {
    const user = dmUser(chatId);
    if (!user) return chatId;
    const known = await this.deps.state.dmChannel(user);
    if (known) return known;
    const ch = await api.users.createDM(user);
    await this.deps.state.setDmChannel(user, ch.id);
    return ch.id;
  }

  private async after(chatId: string, r: SendResult): Promise<SendResult> {
    if (r.ok || r.code !== FORBIDDEN) return r;
    await this.deps.state.setForbidden(chatId, { at: (this.deps.now ?? Date.now)(), error: r.error });
    this.deps.log.warn(
      { chat: maskId(chatId), error: r.error },
      'discord: no access to this channel, sends to it stop',
    );
    this.deps.onForbidden?.(chatId, r.error);
    return stopped(r.error);
  }

  private dispatch(api: API, channelId: string, item: OutboundItem): Promise<SendResult> {
    return sendTextOrFile(item, {
      text: (text, code) => this.sendText(api, channelId, code ? toDiscordCode(text) : toDiscord(text)),
      file: (file) => this.sendFile(api, channelId, file),
    });
  }

  /** `text` is already formatted for Discord. */
  private async sendText(api: API, channelId: string, text: string): Promise<SendResult> {
    let last: SendResult = { ok: false, error: 'empty message', retryable: false, code: 'empty' };
    let sent = 0;
    for (const piece of chunkText(text, { limit: DISCORD_TEXT_LIMIT, fences: true })) {
      const once = () => post(() => api.channels.createMessage(channelId, { content: piece, ...noPings() }));
      last = await once();
      // The outbox retries a whole item: once part of it is out, a transient failure of the rest is
      // waited out here (briefly), or the parts already sent would be sent again.
      for (let i = 0; !last.ok && last.retryable && sent > 0 && i < CONTINUATION_WAITS_MS.length; i++) {
        await (this.deps.sleep ?? realSleep)(Math.max(CONTINUATION_WAITS_MS[i]!, last.retryAfterMs ?? 0));
        last = await once();
      }
      if (!last.ok) return last;
      sent++;
    }
    return last;
  }

  private async sendFile(
    api: API,
    channelId: string,
    item: Extract<OutboundItem, { type: 'file' }>,
  ): Promise<SendResult> {
    const read = await readForUpload(item.path, this.deps.maxFileBytes);
    if (!read.ok) {
      this.deps.log.warn({ error: read.error }, 'discord attachment not sent');
      return this.sendText(api, channelId, toDiscord(read.notice(item.fileName)));
    }
    const caption = item.caption?.trim() ? toDiscord(item.caption) : '';
    const inline = caption.length <= DISCORD_TEXT_LIMIT ? caption : '';
    const sent = await post(() =>
      api.channels.createMessage(channelId, {
        ...(inline && { content: inline }),
        ...noPings(),
        files: [
          { name: uploadName(item.fileName, item.mimeType), data: read.data, contentType: item.mimeType },
        ],
      }),
    );
    if (!sent.ok) return sent;
    if (caption && !inline) {
      // The file is out: failing the item now would make the outbox send the file again.
      const after = await this.sendText(api, channelId, caption);
      if (!after.ok) this.deps.log.warn({ error: after.error }, 'discord caption after a file not sent');
    }
    return sent;
  }
}

const stopped = (error: string): Failure => ({
  ok: false,
  error: `the bot may not post in this Discord channel (${error}); sends to it stopped until someone writes there again`,
  retryable: false,
  code: FORBIDDEN,
});

async function post(call: () => Promise<{ id: string }>): Promise<SendResult> {
  try {
    return { ok: true, providerId: (await call()).id };
  } catch (err) {
    return sendFailure(err);
  }
}

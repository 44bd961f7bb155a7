// Sends one approved OutboundItem. Text goes as mrkdwn in pieces within Slack's limit, files by
// files.uploadV2. A rate limit is waited out here (Slack's Retry-After, a few times, each at most a
// minute); a longer one goes back to the outbox with its wait. A conversation Slack will never take
// a message for (the bot removed, the channel gone) is marked, and later sends to it end at once
// without calling Slack until it writes to the bot again; a dead token stops every send.
import { NOT_CONNECTED, type OutboundItem, type SendResult } from '../../core/types.js';
import { type Logger, maskId } from '../../log.js';
import { sendTextOrFile } from '../send-item.js';
import type { SlackApi } from './api.js';
import { classifyError, type Failure, hintFor } from './errors.js';
import { parseChatId, type SlackChat } from './ids.js';
import { failedNotice, oversizeNotice, readForUpload } from './media-out.js';
import { render, renderCode } from './render.js';
import type { SlackState } from './state.js';

export interface SenderDeps {
  api: () => SlackApi | undefined;
  state: SlackState;
  log: Logger;
  maxFileBytes: number;
  /** Told once when Slack refuses the token itself (status shows it). */
  onAuthFailure: (code: string) => void;
  /** A conversation's sends stopped or started again (status counts them). */
  onStopsChanged: () => void;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** Rate limits waited out in place; a longer or a fourth one is left to the outbox. */
const MAX_WAIT_MS = 60_000;
const MAX_WAITS = 3;
const realSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());

const stoppedResult = (error: string, code: string): Failure => ({
  ok: false,
  error: `sends to this Slack chat stopped: ${error} (${hintFor(code)})`,
  retryable: false,
  code: 'stopped',
});

export class Sender {
  private authDead: string | undefined;

  constructor(private readonly deps: SenderDeps) {}

  /** After a restart with a token that works again. */
  resetAuth(): void {
    this.authDead = undefined;
  }

  async send(chatId: string, item: OutboundItem): Promise<SendResult> {
    const chat = parseChatId(chatId);
    if (!chat) return { ok: false, error: `not a Slack chat id: ${maskId(chatId)}`, retryable: false };
    if (this.authDead) return stoppedResult(`Slack refused the token (${this.authDead})`, this.authDead);
    const api = this.deps.api();
    if (!api) return { ok: false, error: 'Slack is not connected', retryable: true, code: NOT_CONNECTED };
    const stopped = await this.deps.state.stopped(chat.conversation);
    if (stopped) return stoppedResult(stopped.error, stopped.error);
    return this.dispatch(api, chat, item);
  }

  /**
   * A new text for a message the bot sent (chat.update), its `ts` as `send` returned it. One piece:
   * a longer text is cut to Slack's limit, since an edit cannot become two messages.
   */
  async edit(chatId: string, ts: string, markdown: string): Promise<SendResult> {
    const on = this.onMessage(chatId, ts);
    if (!on.ok) return on;
    const { api, chat } = on;
    const text = render(markdown)[0];
    if (!text?.trim()) return { ok: false, error: 'empty message', retryable: false, code: 'empty' };
    return this.call(chat, async () => {
      await api.chat.update({ channel: chat.conversation, ts, text });
      return ts;
    });
  }

  /**
   * Deletes a message the bot sent (chat.delete). One already gone (a delete resent after a crash)
   * counts as deleted: the outcome asked for holds.
   */
  async delete(chatId: string, ts: string): Promise<SendResult> {
    const on = this.onMessage(chatId, ts);
    if (!on.ok) return on;
    const { api, chat } = on;
    return this.call(chat, async () => {
      try {
        await api.chat.delete({ channel: chat.conversation, ts });
      } catch (err) {
        if ((err as { data?: { error?: string } })?.data?.error !== 'message_not_found') throw err;
      }
      return ts;
    });
  }

  /** The chat and the client for a change to message `ts`, or why there is none. */
  private onMessage(
    chatId: string,
    ts: string,
  ): { ok: true; api: SlackApi; chat: SlackChat } | Extract<SendResult, { ok: false }> {
    const chat = parseChatId(chatId);
    if (!chat) return { ok: false, error: `not a Slack chat id: ${maskId(chatId)}`, retryable: false };
    if (!/^\d{1,12}\.\d{1,8}$/.test(ts))
      return { ok: false, error: 'not a Slack message id', retryable: false, code: 'bad_id' };
    if (this.authDead) return stoppedResult(`Slack refused the token (${this.authDead})`, this.authDead);
    const api = this.deps.api();
    if (!api) return { ok: false, error: 'Slack is not connected', retryable: true, code: NOT_CONNECTED };
    return { ok: true, api, chat };
  }

  private dispatch(api: SlackApi, chat: SlackChat, item: OutboundItem): Promise<SendResult> {
    return sendTextOrFile(item, {
      text: (text, code) => this.sendText(api, chat, code ? renderCode(text) : render(text)),
      file: (file) => this.sendFile(api, chat, file),
    });
  }

  private async sendText(api: SlackApi, chat: SlackChat, pieces: readonly string[]): Promise<SendResult> {
    let last: SendResult = { ok: false, error: 'empty message', retryable: false, code: 'empty' };
    for (const text of pieces) {
      last = await this.call(chat, async () => {
        const r = await api.chat.postMessage({
          channel: chat.conversation,
          text,
          mrkdwn: true,
          unfurl_links: false,
          unfurl_media: false,
          ...(chat.threadTs && { thread_ts: chat.threadTs }),
        });
        return r.ts;
      });
      if (!last.ok) return last;
    }
    return last;
  }

  private async sendFile(
    api: SlackApi,
    chat: SlackChat,
    item: Extract<OutboundItem, { type: 'file' }>,
  ): Promise<SendResult> {
    const read = await readForUpload(item.path, this.deps.maxFileBytes);
    if (!read.ok) {
      this.deps.log.warn({ error: read.error }, 'slack attachment not sent');
      const notice = read.tooLarge
        ? oversizeNotice(item.fileName, read.tooLarge, this.deps.maxFileBytes)
        : failedNotice(item.fileName);
      return this.sendText(api, chat, render(notice));
    }
    const caption = item.caption?.trim() ? render(item.caption) : [];
    return this.call(chat, async () => {
      const r = (await api.filesUploadV2({
        channel_id: chat.conversation,
        file: read.data,
        filename: item.fileName,
        ...(chat.threadTs && { thread_ts: chat.threadTs }),
        ...(caption.length === 1 && { initial_comment: caption[0] }),
      } as Parameters<SlackApi['filesUploadV2']>[0])) as { files?: { files?: { id?: string }[] }[] };
      return r.files?.[0]?.files?.[0]?.id;
    });
  }

  /** One call, with rate limits waited out; a permanent refusal stops the chat (or every chat). */
  private async call(chat: SlackChat, fn: () => Promise<string | undefined>): Promise<SendResult> {
    for (let waits = 0; ; waits++) {
      try {
        const id = await fn();
        return { ok: true, ...(id && { providerId: id }) };
      } catch (err) {
        const { failure, stop } = classifyError(err);
        const wait = failure.retryAfterMs;
        if (failure.code === '429' && wait !== undefined && wait <= MAX_WAIT_MS && waits < MAX_WAITS) {
          this.deps.log.info({ waitMs: wait }, 'slack rate limit: waiting');
          await (this.deps.sleep ?? realSleep)(wait);
          continue;
        }
        if (stop === 'chat' && failure.code) {
          const at = (this.deps.now ?? Date.now)();
          await this.deps.state.setStopped(chat.conversation, { error: failure.code, at });
          this.deps.onStopsChanged();
          this.deps.log.warn(
            { chat: maskId(chat.conversation), error: failure.code },
            'slack refused this chat: sends to it stop',
          );
          return stoppedResult(failure.code, failure.code);
        }
        if (stop === 'auth' && failure.code) {
          this.authDead = failure.code;
          this.deps.onAuthFailure(failure.code);
          return stoppedResult(`Slack refused the token (${failure.code})`, failure.code);
        }
        return failure;
      }
    }
  }
}

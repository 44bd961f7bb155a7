// The inbound pipeline for one update: classify → dedupe → gate → media → handler. Unknown senders
// get nothing back (as on WhatsApp): a bot is public, and any answer tells a stranger it is live.

import { rm } from 'node:fs/promises';
import type { Update } from 'grammy/types';
import { sanitizeLine } from '../../core/line.js';
import type { ChannelName, InboundMessage } from '../../core/types.js';
import { type Logger, maskId } from '../../log.js';
import { deliverWithRetry, withAttachment } from '../inbound-common.js';
import type { InboundHandler, InboundOutcome } from '../types.js';
import { type GateConfig, gate } from './gate.js';
import { fetchInbound, type MediaInDeps } from './media-in.js';
import { classify, type Me, type NormalizedMessage } from './normalize.js';
import type { TelegramState } from './state.js';

export const TELEGRAM: ChannelName = 'telegram';

export interface InboundDeps {
  gate: GateConfig;
  me: () => Me | undefined;
  state: TelegramState;
  media: Omit<MediaInDeps, 'maxBytes'> & { maxBytes: number };
  transcribe?: (path: string) => Promise<string | undefined>;
  /** Best-effort notice to a chat (media or storage failures). */
  notify: (chatId: string, text: string) => Promise<void>;
  log: Logger;
  /** Ends the spinner of a tapped card button (answerCallbackQuery). */
  ackTap?: (id: string) => Promise<unknown>;
  sleep?: (ms: number) => Promise<void>;
  handlerRetryDelaysMs?: readonly number[];
}

const RECENT_MAX = 2000;

export class Inbound {
  private handler: InboundHandler | undefined;
  /**
   * Update ids taken lately (a webhook delivered twice). Across restarts the long-poll offset keeps
   * an update from being read again, and the inbox's dedupe on chat and message id keeps a message
   * from running twice. No durable "seen" mark is set on arrival: a crash before the message is
   * stored would then lose it when Telegram delivers it again.
   */
  private readonly recent = new Set<number>();

  constructor(private readonly deps: InboundDeps) {}

  private remember(id: number): void {
    this.recent.add(id);
    if (this.recent.size > RECENT_MAX) this.recent.delete(this.recent.values().next().value!);
  }

  setHandler(handler: InboundHandler | undefined): void {
    this.handler = handler;
  }

  async handle(update: Update): Promise<void> {
    const { deps } = this;
    const me = deps.me();
    if (!me || this.recent.has(update.update_id)) return;
    this.remember(update.update_id);
    const c = classify(update, me, deps.media.maxBytes);
    if (c.type === 'ignore') {
      deps.log.debug({ reason: c.reason }, 'telegram update ignored');
      return;
    }
    const msg = c.msg;
    const decision = gate(msg, deps.gate);
    if (decision.type === 'drop') {
      // Ids are shown in full: they are what goes into telegram.allowFrom / telegram.groups.
      const who = decision.reason === 'group_not_allowed' ? { group: msg.chatId } : { user: msg.senderId };
      deps.log.info({ ...who, reason: decision.reason }, 'telegram message dropped');
      return;
    }
    if (decision.type === 'skip') {
      deps.log.debug({ chat: maskId(msg.chatId), reason: decision.reason }, 'telegram group message skipped');
      return;
    }
    // Writing to the bot again undoes a block: the user unblocked it, or the group added it back.
    if (await deps.state.isBlocked(msg.chatId)) await deps.state.setBlocked(msg.chatId, false, msg.at);
    // A tap is answered at once (Telegram shows it pending until then), once it passed the gate.
    if (msg.tapId) await deps.ackTap?.(msg.tapId).catch(() => undefined);
    const inbound = await this.build(msg);
    if (!inbound) return;
    const outcome = await this.deliver(inbound);
    deps.log.info(
      { chat: maskId(msg.chatId), outcome: outcome.type, trigger: decision.trigger },
      'telegram message handled',
    );
    if (outcome.type === 'duplicate' || outcome.type === 'failed' || outcome.type === 'rejected') {
      await Promise.all(inbound.media.map((m) => rm(m.path, { force: true }).catch(() => undefined)));
    }
    if (outcome.type === 'failed') {
      await deps.notify(
        msg.chatId,
        'Sorry, your message could not be saved, so it was not passed on. Please send it again.',
      );
    }
  }

  private async build(msg: NormalizedMessage): Promise<InboundMessage | undefined> {
    const { deps } = this;
    let text = msg.text;
    const inbound: InboundMessage = {
      channel: TELEGRAM,
      chatId: msg.chatId,
      senderId: msg.senderId,
      // Unique per chat only: the chat id makes it unique per bot, the inbox's dedupe key. A tap is
      // its callback query's, so two taps on one card are two answers.
      messageId: msg.tapId ? `${msg.chatId}:tap:${msg.tapId}` : `${msg.chatId}:${msg.messageId}`,
      text,
      media: [],
      isGroup: msg.isGroup,
      mentioned: msg.isGroup,
      at: msg.at,
    };
    if (msg.senderName) inbound.senderName = sanitizeLine(msg.senderName, 80);
    if (msg.media) {
      const got = await fetchInbound(msg.media, deps.media, msg.chatId);
      if (!got.ok)
        deps.log.warn({ chat: maskId(msg.chatId), error: got.log }, 'telegram media not downloaded');
      const next = await withAttachment(text, msg.media.kind, got, inbound.media, {
        notify: () => (got.ok ? Promise.resolve() : deps.notify(msg.chatId, got.userMessage)),
        ...(deps.transcribe && { transcribe: deps.transcribe }),
      });
      if (next === undefined) return undefined;
      text = next;
    }
    inbound.text = text;
    return inbound;
  }

  /** Calls the handler; a store failure is retried a few times before the user is told. */
  private deliver(msg: InboundMessage): Promise<InboundOutcome> {
    return deliverWithRetry(this.handler, msg, {
      log: this.deps.log,
      ...(this.deps.handlerRetryDelaysMs && { delaysMs: this.deps.handlerRetryDelaysMs }),
      ...(this.deps.sleep && { sleep: this.deps.sleep }),
    });
  }
}

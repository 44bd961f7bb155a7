// The inbound pipeline for one upsert: classify → resolve the sender → gate → media → handler →
// read receipt. Messages of one chat are handled in order; different chats do not wait on each other.
// The read receipt goes out only after the handler reported the message durable (stored/duplicate).

import { rm } from 'node:fs/promises';
import { jidNormalizedUser, type MessageUpsertType, type WAMessage } from '@whiskeysockets/baileys';
import { KeyedChains } from '../../core/keyed-chains.js';
import { sanitizeLine } from '../../core/line.js';
import type { InboundMessage } from '../../core/types.js';
import { type Logger, maskId } from '../../log.js';
import { deliverWithRetry, withAttachment } from '../inbound-common.js';
import type { InboundHandler, InboundOutcome } from '../types.js';
import type { ChatJids } from './chat-jids.js';
import { type GateConfig, gate } from './gate.js';
import type { GroupContext } from './group-context.js';
import { fetchInboundMedia, type InboundMediaDeps } from './inbound-media.js';
import { chatIdFor, ownIds } from './jid.js';
import { classify, type NormalizeContext, type NormalizedMessage } from './normalize.js';
import { resolveSenderE164 } from './sender.js';
import type { SentStore } from './sent-store.js';
import type { WaSocket } from './socket.js';

export interface InboundDeps {
  gate: GateConfig;
  readReceipts: boolean;
  offlineWindowMs: number;
  /** When the last outage of the link began (see Liveness.outageStart): its backlog runs too. */
  outageStart?: () => number | undefined;
  sent: SentStore;
  chats: ChatJids;
  context: GroupContext;
  media: Omit<InboundMediaDeps, 'reupload'>;
  transcribe?: (path: string) => Promise<string | undefined>;
  /** Best-effort notice to a chat JID (media failures, storage failures). */
  notify: (jid: string, text: string) => Promise<void>;
  socket: () => WaSocket | undefined;
  log: Logger;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** Waits between handler attempts when the store could not take the message. */
  handlerRetryDelaysMs?: readonly number[];
}

export class Inbound {
  /** One chat's messages are handled in the order they came; chats side by side. */
  private readonly chatChains = new KeyedChains();
  private handler: InboundHandler | undefined;

  constructor(private readonly deps: InboundDeps) {}

  setHandler(handler: InboundHandler | undefined): void {
    this.handler = handler;
  }

  onUpsert(sock: WaSocket, upsert: { messages: WAMessage[]; type: MessageUpsertType }): void {
    for (const msg of upsert.messages) {
      void this.chatChains.run(msg.key?.remoteJid ?? '', () =>
        this.handle(sock, msg, upsert.type).catch((err: Error) =>
          this.deps.log.error({ err: err.message }, 'whatsapp inbound failed'),
        ),
      );
    }
  }

  /** Resolves when every message received so far has been handled. */
  async drain(): Promise<void> {
    await this.chatChains.drain();
  }

  private async handle(sock: WaSocket, msg: WAMessage, type: MessageUpsertType): Promise<void> {
    const { deps } = this;
    const own = ownIds(sock.user);
    const outageStart = deps.outageStart?.();
    const ctx: NormalizeContext = {
      own,
      now: (deps.now ?? Date.now)(),
      offlineWindowMs: deps.offlineWindowMs,
      ...(outageStart !== undefined && { outageStart }),
    };
    const c = classify(msg, type, ctx);
    if (c.type === 'ignore') {
      deps.log.debug({ reason: c.reason }, 'whatsapp message ignored');
      return;
    }
    const lookup = (lid: string) => sock.signalRepository.lidMapping.getPNForLID(lid);
    const senderE164 = await resolveSenderE164(c, own, lookup);
    const decision = gate(
      {
        msg: c,
        own,
        sentByUs: c.fromMe && (await deps.sent.has(c.id)),
        quotesUs: c.quoted?.id !== undefined && (await deps.sent.has(c.quoted.id)),
        ...(senderE164 ? { senderE164 } : {}),
      },
      deps.gate,
    );
    const chat = maskId(c.chatJid);
    if (decision.type === 'drop') {
      // A group id is not a phone number: shown in full so it can be copied into whatsapp.groups.
      const where = decision.reason === 'group_not_allowed' ? { group: c.chatJid } : { chat };
      deps.log.info({ ...where, reason: decision.reason }, 'whatsapp message dropped');
      return;
    }
    if (decision.type === 'context') {
      const name = c.pushName ?? (c.fromMe ? 'the owner' : (senderE164 ?? 'someone'));
      const untrusted = decision.reason === 'sender_not_allowed' || decision.reason === 'unknown_sender';
      deps.context.add(c.chatJid, name, c.text || (c.media ? `[${c.media.kind}]` : ''), untrusted);
      return;
    }
    const chatId = chatIdFor(c.chatJid, c.selfChat ? (own.e164 ?? senderE164) : senderE164);
    await deps.chats.remember(chatId, c.chatJid);
    const inbound = await this.build(msg, c, ctx, chatId, senderE164);
    if (!inbound) return;
    const context = c.isGroup ? deps.context.peek(c.chatJid) : undefined;
    if (context) inbound.context = context.text;
    const outcome = await this.deliver(inbound);
    deps.log.info({ chat, outcome: outcome.type, trigger: decision.trigger }, 'whatsapp message handled');
    // A message nobody will run (a redelivery after a restart, unsaved, or dropped by a full queue)
    // would otherwise leave its files in the inbound folder for good. A `command` keeps them: `/new`
    // with an attachment is stored as the new session's first message and runs with them.
    if (outcome.type === 'duplicate' || outcome.type === 'failed' || outcome.type === 'rejected') {
      await Promise.all(inbound.media.map((m) => rm(m.path, { force: true }).catch(() => undefined)));
    }
    if (outcome.type === 'failed') {
      await deps.notify(
        c.chatJid,
        'Sorry, your message could not be saved, so it was not passed on. Please send it again.',
      );
      return;
    }
    if (context && (outcome.type === 'stored' || outcome.type === 'duplicate')) {
      deps.context.consume(c.chatJid, context.mark);
    }
    // Blue ticks say "read": for a stored or already-known message, and for a command (stored and
    // answered at once), not for one the queue refused (full, or empty). Reading our own self-chat
    // messages means nothing.
    if (outcome.type === 'rejected') return;
    const live = deps.socket();
    if (deps.readReceipts && !c.fromMe && live) {
      await live
        .readMessages([msg.key])
        .catch((err: Error) => deps.log.debug({ err: err.message }, 'read receipt failed'));
    }
  }

  private async build(
    msg: WAMessage,
    c: NormalizedMessage,
    ctx: NormalizeContext,
    chatId: string,
    senderE164: string | undefined,
  ): Promise<InboundMessage | undefined> {
    const { deps } = this;
    let text = c.text;
    const inbound: InboundMessage = {
      channel: 'whatsapp',
      chatId,
      senderId: senderE164 ?? jidNormalizedUser(c.senderJid),
      messageId: c.id,
      text,
      media: [],
      isGroup: c.isGroup,
      mentioned: c.isGroup,
      at: c.at,
    };
    if (c.pushName) inbound.senderName = sanitizeLine(c.pushName, 80);
    if (c.media) {
      const sock = deps.socket();
      const got = await fetchInboundMedia(
        msg,
        c.media,
        ctx,
        {
          ...deps.media,
          ...(sock ? { reupload: (m: WAMessage) => sock.updateMediaMessage(m) } : {}),
        },
        chatId,
      );
      if (!got.ok)
        deps.log.warn({ chat: maskId(c.chatJid), error: got.log }, 'whatsapp media not downloaded');
      const next = await withAttachment(text, c.media.kind, got, inbound.media, {
        notify: () => (got.ok ? Promise.resolve() : deps.notify(c.chatJid, got.userMessage)),
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

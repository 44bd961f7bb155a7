// The inbound pipeline for one message: classify → dedupe → gate → attachments → handler. Unknown
// senders get nothing back (as on the other channels): a bot is public, and any answer tells a
// stranger it is live. A message id is remembered once its outcome is durable (state.ts), so a
// replay after a resume or a restart is dropped here, before its attachments are fetched again.
import { rm } from 'node:fs/promises';
import { sanitizeLine } from '../../core/line.js';
import type { ChannelName, InboundMessage } from '../../core/types.js';
import { type Logger, maskId } from '../../log.js';
import { inboundDirOf } from '../../media/inbound.js';
import { deliverWithRetry, withAttachment } from '../inbound-common.js';
import type { InboundHandler, InboundOutcome } from '../types.js';
import { type GateConfig, gate } from './gate.js';
import { fetchAttachment, type MediaInDeps } from './media-in.js';
import type { NormalizedMessage } from './normalize.js';
import { type DiscordState, RECENT_MAX } from './state.js';

export const DISCORD: ChannelName = 'discord';

export interface InboundDeps {
  gate: GateConfig;
  state: DiscordState;
  media: MediaInDeps;
  threadSessions: boolean;
  /** The parent of a thread, or undefined for a channel that is none (asked of Discord, cached). */
  parentOf: (channelId: string) => Promise<string | undefined>;
  transcribe?: (path: string) => Promise<string | undefined>;
  /** Best-effort notice to a chat (media or storage failures). */
  notify: (chatId: string, text: string) => Promise<void>;
  /** Someone wrote in a chat the bot had no access to: it may have been given back. */
  reopened: (chatId: string) => void;
  log: Logger;
  sleep?: (ms: number) => Promise<void>;
  handlerRetryDelaysMs?: readonly number[];
}

export class Inbound {
  private handler: InboundHandler | undefined;
  private recent: string[] = [];
  private readonly recentSet = new Set<string>();

  constructor(private readonly deps: InboundDeps) {}

  /** Reads the remembered ids once, before the gateway delivers anything. */
  async load(): Promise<void> {
    this.recent = await this.deps.state.recent();
    for (const id of this.recent) this.recentSet.add(id);
  }

  setHandler(handler: InboundHandler | undefined): void {
    this.handler = handler;
  }

  private async remember(id: string): Promise<void> {
    if (this.recentSet.has(id)) return;
    this.recentSet.add(id);
    this.recent.push(id);
    while (this.recent.length > RECENT_MAX) this.recentSet.delete(this.recent.shift()!);
    await this.deps.state.setRecent(this.recent);
  }

  /** The chat a message belongs to: a person for a DM, else its channel (or a thread's parent). */
  async chatOf(msg: NormalizedMessage): Promise<string> {
    if (msg.guildId === undefined) {
      if ((await this.deps.state.dmChannel(msg.senderId)) !== msg.channelId)
        await this.deps.state.setDmChannel(msg.senderId, msg.channelId);
      return `dm:${msg.senderId}`;
    }
    if (msg.parentId === undefined) {
      const parent = await this.deps.parentOf(msg.channelId);
      if (parent) msg.parentId = parent;
    }
    return !this.deps.threadSessions && msg.parentId ? msg.parentId : msg.channelId;
  }

  async handle(msg: NormalizedMessage): Promise<InboundOutcome | undefined> {
    const { deps } = this;
    if (this.recentSet.has(msg.id)) {
      deps.log.debug({ reason: 'seen' }, 'discord message already handled');
      return undefined;
    }
    // Strangers and other servers are dropped before anything is looked up or written for them.
    const first = gate(msg, deps.gate);
    if (first.type === 'drop') {
      // Ids are shown in full: they are what goes into discord.allowFrom / discord.guilds.
      const who = first.reason === 'guild_not_allowed' ? { guild: msg.guildId } : { user: msg.senderId };
      deps.log.info({ ...who, reason: first.reason }, 'discord message dropped');
      await this.remember(msg.id);
      return undefined;
    }
    const chatId = await this.chatOf(msg);
    // Again, now that a thread's parent is known (an always-on parent lets its threads in).
    // It cannot drop now: who and which server are as before.
    const decision = gate(msg, deps.gate);
    if (decision.type !== 'run') {
      deps.log.debug({ chat: maskId(chatId), reason: decision.reason }, 'discord message skipped');
      await this.remember(msg.id);
      return undefined;
    }
    if (await deps.state.forbidden(chatId)) {
      await deps.state.setForbidden(chatId, undefined);
      deps.reopened(chatId);
    }
    const inbound = await this.build(msg, chatId);
    if (!inbound) {
      await this.remember(msg.id);
      return undefined;
    }
    const outcome = await deliverWithRetry(this.handler, inbound, {
      log: deps.log,
      ...(deps.handlerRetryDelaysMs && { delaysMs: deps.handlerRetryDelaysMs }),
      ...(deps.sleep && { sleep: deps.sleep }),
    });
    deps.log.info(
      { chat: maskId(chatId), outcome: outcome.type, trigger: decision.trigger },
      'discord message handled',
    );
    if (outcome.type === 'duplicate' || outcome.type === 'failed' || outcome.type === 'rejected') {
      await Promise.all(inbound.media.map((m) => rm(m.path, { force: true }).catch(() => undefined)));
    }
    if (outcome.type === 'failed') {
      await deps.notify(
        chatId,
        'Sorry, your message could not be saved, so it was not passed on. Please send it again.',
      );
    } else {
      await this.remember(msg.id);
    }
    return outcome;
  }

  private async build(msg: NormalizedMessage, chatId: string): Promise<InboundMessage | undefined> {
    const { deps } = this;
    const inbound: InboundMessage = {
      channel: DISCORD,
      chatId,
      senderId: msg.senderId,
      // A snowflake: unique across Discord, the inbox's dedupe key.
      messageId: msg.id,
      text: msg.text,
      media: [],
      isGroup: msg.guildId !== undefined,
      mentioned: msg.guildId !== undefined,
      at: msg.at,
    };
    if (msg.senderName) inbound.senderName = sanitizeLine(msg.senderName, 80);
    let text: string | undefined = msg.text;
    for (const ref of msg.attachments) {
      // Each chat's files in its own folder: a sandboxed agent sees only its own chat's.
      const got = await fetchAttachment(ref, {
        ...deps.media,
        dir: inboundDirOf(deps.media.dir, DISCORD, chatId),
      });
      if (!got.ok)
        deps.log.warn({ chat: maskId(chatId), error: got.log }, 'discord attachment not downloaded');
      text = await withAttachment(text ?? '', ref.kind, got, inbound.media, {
        notify: () => (got.ok ? Promise.resolve() : deps.notify(chatId, got.userMessage)),
        ...(deps.transcribe && { transcribe: deps.transcribe }),
      });
    }
    if (text === undefined || (!text.trim() && inbound.media.length === 0)) return undefined;
    inbound.text = text;
    return inbound;
  }
}

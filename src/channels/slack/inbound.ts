// The inbound pipeline for one Events API envelope, whichever way it came (Socket Mode or HTTP):
// workspace check → already handled? → classify → gate → handler. It answers whether Slack may be
// told the envelope arrived (`ack`): only once the message is durable (stored, a duplicate, a command,
// or refused by the queue), never after the store failed, so Slack delivers it again. A retry of an
// envelope still being handled waits for that one's answer instead of running it a second time.
// Unknown senders get nothing back: any answer tells a stranger the bot is live.
import type { ChannelName, InboundMessage } from '../../core/types.js';
import { type Logger, maskId } from '../../log.js';
import { deliverWithRetry } from '../inbound-common.js';
import type { InboundHandler, InboundOutcome } from '../types.js';
import { type GateConfig, gate } from './gate.js';
import { classify, type Me, type NormalizedMessage, type SlackMessageEvent } from './normalize.js';
import type { SlackState } from './state.js';

export const SLACK: ChannelName = 'slack';

export interface Envelope {
  eventId?: string;
  teamId?: string;
  /** Slack's count of earlier deliveries (socket `retry_attempt`, HTTP `X-Slack-Retry-Num`). */
  retryNum?: number;
  event: SlackMessageEvent;
}

export type Ack = 'ack' | 'nack';

export interface InboundDeps {
  gate: GateConfig;
  me: () => Me | undefined;
  /** slack.teamId, when set: the workspace every event must come from besides the token's own. */
  teamId?: string;
  threadSessions: boolean;
  maxBytes: number;
  state: SlackState;
  notify: (chatId: string, text: string) => Promise<void>;
  /** A conversation wrote to the bot: sends to it may go again. */
  onChatSpoke: (conversation: string) => Promise<void>;
  log: Logger;
  sleep?: (ms: number) => Promise<void>;
  handlerRetryDelaysMs?: readonly number[];
}

export class Inbound {
  private handler: InboundHandler | undefined;
  private readonly inFlight = new Map<string, Promise<Ack>>();

  constructor(private readonly deps: InboundDeps) {}

  setHandler(handler: InboundHandler | undefined): void {
    this.handler = handler;
  }

  handle(env: Envelope): Promise<Ack> {
    const keys = keysOf(env);
    const running = keys.map((k) => this.inFlight.get(k)).find(Boolean);
    if (running) return running;
    const p = this.process(env, keys).finally(() => {
      for (const k of keys) this.inFlight.delete(k);
    });
    for (const k of keys) this.inFlight.set(k, p);
    return p;
  }

  private async process(env: Envelope, keys: string[]): Promise<Ack> {
    const { deps } = this;
    const me = deps.me();
    if (!me) return 'nack';
    const team = env.teamId;
    if (!team || team !== me.teamId || (deps.teamId && team !== deps.teamId)) {
      deps.log.info({ team: team ?? 'none' }, 'slack event from another workspace dropped');
      return 'ack';
    }
    if (keys.length && (await deps.state.wasHandled(keys))) {
      deps.log.debug({ retry: env.retryNum ?? 0 }, 'slack event already handled: acknowledged again');
      return 'ack';
    }
    const c = classify(env.event, me, deps.threadSessions, deps.maxBytes);
    if (c.type === 'ignore') {
      deps.log.debug({ reason: c.reason }, 'slack event ignored');
      return 'ack';
    }
    const msg = c.msg;
    const inThread = msg.threadTs
      ? msg.parentIsBot || (await deps.state.inThread(msg.conversation, msg.threadTs))
      : false;
    const decision = gate(msg, deps.gate, inThread);
    if (decision.type === 'drop') {
      // Ids are shown in full: they are what goes into slack.allowFrom / slack.channels.
      const who =
        decision.reason === 'channel_not_allowed' ? { channel: msg.conversation } : { user: msg.senderId };
      deps.log.info({ ...who, reason: decision.reason }, 'slack message dropped');
      return 'ack';
    }
    if (decision.type === 'skip') {
      deps.log.debug({ chat: maskId(msg.chatId), reason: decision.reason }, 'slack channel message skipped');
      return 'ack';
    }
    await deps.onChatSpoke(msg.conversation);
    const tooLarge = msg.tooLarge.length
      ? `Not passed on (over the size limit): ${msg.tooLarge.map((n) => `"${n}"`).join(', ')}.`
      : undefined;
    if (!msg.text.trim() && msg.files.length === 0) {
      if (tooLarge) await deps.notify(msg.chatId, tooLarge);
      return 'ack';
    }
    const outcome = await this.deliver(toInbound(msg));
    deps.log.info(
      { chat: maskId(msg.chatId), outcome: outcome.type, trigger: decision.trigger },
      'slack message handled',
    );
    if (outcome.type === 'failed') return 'nack';
    // Called into a thread (or starting one with thread sessions): later replies there need no mention.
    if (msg.isGroup && (msg.threadTs || deps.threadSessions))
      await deps.state.joinThread(msg.conversation, msg.threadRoot, msg.at);
    if (keys.length) await deps.state.markHandled(keys);
    if (tooLarge) await deps.notify(msg.chatId, tooLarge);
    return 'ack';
  }

  private deliver(msg: InboundMessage): Promise<InboundOutcome> {
    return deliverWithRetry(this.handler, msg, {
      log: this.deps.log,
      ...(this.deps.handlerRetryDelaysMs && { delaysMs: this.deps.handlerRetryDelaysMs }),
      ...(this.deps.sleep && { sleep: this.deps.sleep }),
    });
  }
}

/** The envelope's event id, and the message's client id (the same message in another envelope). */
function keysOf(env: Envelope): string[] {
  const out: string[] = [];
  if (env.eventId) out.push(`e:${env.eventId}`);
  if (env.event.client_msg_id) out.push(`m:${env.event.client_msg_id}`);
  return out;
}

function toInbound(msg: NormalizedMessage): InboundMessage {
  return {
    channel: SLACK,
    chatId: msg.chatId,
    senderId: msg.senderId,
    // A message's ts is unique within its conversation: with it, the inbox's dedupe key.
    messageId: `${msg.conversation}:${msg.ts}`,
    text: msg.text,
    media: [],
    ...(msg.files.length && { remoteMedia: msg.files.map((f) => ({ url: f.url, mimeType: f.mimeType })) }),
    isGroup: msg.isGroup,
    mentioned: msg.isGroup,
    at: msg.at,
  };
}

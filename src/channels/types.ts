import type {
  Card,
  ChannelName,
  FetchedMedia,
  InboundMessage,
  OutboundItem,
  RemoteMedia,
  SendResult,
} from '../core/types.js';

/** The last liveness check of a channel that can look connected and still hear nothing (WhatsApp). */
export interface ProbeResult {
  ok: boolean;
  at: number;
  /** "answered in 140 ms", or what went wrong. Never a number or a message body. */
  detail: string;
}

export type ChannelState =
  | { type: 'disabled' }
  | { type: 'stopped' }
  /** `lastError`/`retries`: the attempts so far failed (e.g. WhatsApp unreachable) and are being retried. */
  | { type: 'connecting'; since: number; qr?: string; lastError?: string; retries?: number }
  /**
   * `account`: who the channel is connected as. Masked wherever it is shown (a phone number), unless
   * the channel says `accountPublic`: a name anyone can look up, such as a bot's @username.
   */
  | { type: 'connected'; since: number; account?: string; accountPublic?: boolean; probe?: ProbeResult }
  | { type: 'degraded'; since: number; lastError: string; retries: number; probe?: ProbeResult }
  | { type: 'relink_required'; since: number; reason: string }
  /**
   * What only one process may run of this channel (a socket, a long poll) runs in another process,
   * `holder` ("held by host-b pid 4242"); this one sends only where the channel can without it.
   */
  | { type: 'elsewhere'; since: number; holder: string };

/**
 * What the channel's inbound handler returns. The channel acknowledges to its peer (WhatsApp read
 * receipt, Twilio 200) only once the message is durable: `stored`, `duplicate` or `command` (a
 * command is recorded, and `/new` with text or files is stored as the new session's first message,
 * files included). Never after `failed`.
 */
export type InboundOutcome =
  | { type: 'stored'; inboxId: number }
  | { type: 'duplicate' }
  | { type: 'command' }
  | { type: 'rejected'; reason: string }
  | { type: 'failed'; error: string };

export type InboundHandler = (msg: InboundMessage) => Promise<InboundOutcome>;

export interface SendOptions {
  attemptedAt?: number;
  /**
   * With `attemptedAt`: the provider ids the outbox already holds for this chat's chunks sent since
   * shortly before then. None of them is the lost send, however alike (two attachments without a
   * caption, the same short text twice), so a provider lookup must not take them for it.
   */
  knownIds?: readonly string[];
}

export interface Channel {
  readonly name: ChannelName;
  /** The longest text one message may carry on this channel. */
  readonly textLimit: number;
  start(onInbound: InboundHandler): Promise<void>;
  stop(): Promise<void>;
  /**
   * True when the channel can ask its provider whether an earlier send arrived: the outbox then notes
   * when each send begins, and passes that as `opts.attemptedAt` when the item is sent again.
   */
  readonly checksResends?: boolean;
  /**
   * `opts.attemptedAt` (only for `checksResends` channels): a send of this same item began at that
   * time and its outcome is unknown (the relay died mid-send, or the answer never came).
   */
  send(chatId: string, item: OutboundItem, opts?: SendOptions): Promise<SendResult>;
  typing?(chatId: string, on: boolean): Promise<void>;
  /**
   * Replaces the text of a message this channel sent (`providerMessageId`: the id its `send`
   * returned). Present exactly when the plugin's `capabilities.edit` is true. Errors are values, as
   * for `send`; the outbox retries a retryable one like a send.
   */
  edit?(chatId: string, providerMessageId: string, text: string): Promise<SendResult>;
  /**
   * Puts one emoji reaction on a message of the chat, sent or received (`providerMessageId`: the id
   * `send` returned, or the inbound message's `messageId`). Present exactly when `capabilities.react`.
   */
  react?(chatId: string, providerMessageId: string, emoji: string): Promise<SendResult>;
  /**
   * Deletes a message this channel sent, for everyone in the chat. Present exactly when
   * `capabilities.delete`. A message already gone counts as deleted: the outbox may ask again after
   * a crash between the call and its record.
   */
  delete?(chatId: string, providerMessageId: string): Promise<SendResult>;
  /**
   * Sends a message with buttons; a tap comes back through `start`'s handler as the chat's next
   * message, its text the tapped button's label. Present exactly when `capabilities.buttons`.
   */
  sendCard?(chatId: string, card: Card): Promise<SendResult>;
  /**
   * Downloads attachments a message was stored with but not fetched (`InboundMessage.remoteMedia`),
   * just before its run. Never throws: an attachment that does not come becomes a note.
   */
  fetchMedia?(chatId: string, remote: readonly RemoteMedia[]): Promise<FetchedMedia>;
  status(): ChannelState;
}

// The shapes that cross the seams between channels, the core and the agent layer.
// Nothing here knows which channel a message came from or which CLI answers it.

/**
 * A channel's name (`whatsapp`, `twilio`, `telegram`, `console`…). Open on purpose: the channels are
 * plug-ins (src/channels/registry.ts), and the core never lists them. Where a person types a chat key,
 * the registry checks the channel exists and accepts the chat id (`checkChatKey`).
 */
export type ChannelName = string;

/** What a channel name may look like: also the prefix of its chat keys, so never a `:`. */
export const CHANNEL_NAME = /^[a-z][a-z0-9-]{0,31}$/;

/** A chat is addressed as `<channel>:<chatId>` everywhere outside a channel (store keys, targets, logs). */
export type ChatKey = `${ChannelName}:${string}`;

export type InboundMediaKind = 'image' | 'audio' | 'voice' | 'video' | 'document' | 'sticker';

/** A file the channel already downloaded (capped) into the inbound media folder. */
export interface InboundMedia {
  kind: InboundMediaKind;
  path: string;
  mimeType: string;
  sizeBytes: number;
  /** The sender's file name, untrusted: for display to the agent only, never used as a path. */
  fileName?: string;
}

/**
 * An attachment the channel has not downloaded yet, opaque to the core: the message is stored (and
 * acknowledged) with it, and the channel fetches it just before the message runs, after a restart too.
 */
export interface RemoteMedia {
  url: string;
  mimeType: string;
}

/** What a channel's fetch of remote attachments gave: the files, and a note per one that did not come. */
export interface FetchedMedia {
  media: InboundMedia[];
  notes: string[];
}

export interface InboundMessage {
  channel: ChannelName;
  /** The channel's own id of the conversation (E.164 for direct chats, a group JID for groups). */
  chatId: string;
  /** Normalised sender (E.164 where the channel can resolve it). */
  senderId: string;
  /** Untrusted display name. */
  senderName?: string;
  /** The channel's message id; (channel, messageId) is the dedupe key. */
  messageId: string;
  text: string;
  media: InboundMedia[];
  /** Attachments still to be fetched by the channel before the run (see RemoteMedia). */
  remoteMedia?: RemoteMedia[];
  isGroup: boolean;
  /** True when a group message addressed the linked account (mention, pattern or reply). */
  mentioned: boolean;
  /** Milliseconds since the epoch, as the channel reports the send time. */
  at: number;
  /** Recent group messages that did not trigger a run, rendered as text, handed to the agent once. */
  context?: string;
}

/** One unit the outbox delivers: a text chunk or one attachment already approved by the media policy. */
export type OutboundItem =
  /**
   * `code`: shown exactly as written, never read as Markdown (an approval's command): as code where
   * the channel has code formatting (channels/verbatim.ts), plain text elsewhere.
   */
  | { type: 'text'; text: string; code?: true }
  | { type: 'file'; path: string; mimeType: string; fileName: string; sizeBytes: number; caption?: string }
  | { type: 'url'; url: string; caption?: string };

/**
 * A change to a message already in the chat, written to the outbox like a message and sent once, in
 * order with the chat's messages. `ref` is agentwire's id of the message (core/message-ref.ts), turned
 * into the provider's id only when it is sent: the message it names was written earlier, so it has
 * been delivered (or given up) by then.
 */
export type OutboundAction =
  | { type: 'edit'; ref: string; text: string }
  | { type: 'react'; ref: string; emoji: string }
  /** Removes a message the channel sent, for everyone in the chat (a finished status message). */
  | { type: 'delete'; ref: string }
  /**
   * A message with buttons (send_card), written only for a channel whose plug-in declares `buttons`;
   * every other channel gets the same card as text with a numbered list (core/card.ts).
   */
  | { type: 'card'; card: Card };

/** A titled message with buttons to tap; a tap comes back as the chat's next message (its label). */
export interface Card {
  title: string;
  body: string;
  buttons: readonly string[];
}

/** What one outbox row holds. */
export type OutboxItem = OutboundItem | OutboundAction;

export type SendResult =
  | { ok: true; providerId?: string }
  | { ok: false; error: string; retryable: boolean; code?: string; retryAfterMs?: number };

/**
 * The `code` of a failed send that never reached the provider because the channel has no connection
 * right now. The outbox waits for the channel instead of spending one of the chunk's tries.
 */
export const NOT_CONNECTED = 'not_connected';

export const chatKey = (channel: ChannelName, chatId: string): ChatKey => `${channel}:${chatId}`;

/**
 * Splits a chat key into channel and chat id, by its form alone: whether that channel exists and
 * takes that id is the registry's question (`checkChatKey` in src/channels/registry.ts), asked where
 * a person typed the key. Keys read back from the store were checked when they were made.
 */
export function parseChatKey(key: string): { channel: ChannelName; chatId: string } | undefined {
  const i = key.indexOf(':');
  if (i <= 0) return undefined;
  const channel = key.slice(0, i);
  const chatId = key.slice(i + 1);
  if (!chatId || !CHANNEL_NAME.test(channel)) return undefined;
  return { channel, chatId };
}

/**
 * What the core offers to heartbeats and schedules: a run in a chat's own run slot that never queues up
 * behind a user run, and delivery through the outbox. Implemented by the queue; consumed by heartbeat/.
 */
export type SystemRunOutcome =
  | { type: 'busy' }
  | { type: 'no_session' }
  | { type: 'ran'; result: import('../agents/types.js').AgentResult }
  /**
   * The agent ran, but the chat's lease moved to another process meanwhile (this one paused past
   * it, or taken for dead): the store refused the run's session, and nothing more of the run is
   * this process's to write or send. Not to be run again here: this process lost the chat.
   */
  | { type: 'moved' };

/**
 * Which session a heartbeat or schedule runs in: the chat's own (`chat`, sharing its context), one
 * kept for this job alone (`own`, under `key`, so check-ins never grow the conversation's context),
 * or a new one every time (`fresh`, never stored).
 */
export type SystemSession = { type: 'chat' } | { type: 'own'; key: string } | { type: 'fresh' };

/** How a heartbeat or schedule runs: its session, and another agent or model than the chat's. */
export interface SystemRunOptions {
  allowNewSession: boolean;
  touchIdle: boolean;
  label: string;
  /** Default `chat`. With `own` or `fresh` a session is started when there is none. */
  session?: SystemSession;
  /** Another CLI than the chat's (e.g. a cheaper one for check-ins). */
  agent?: import('../agents/types.js').AgentKind;
  /** The model passed with that CLI's model flag, instead of the configured one. */
  model?: string;
  /** Names the run for its tools; the same when a restart redoes it (a schedule's occurrence). */
  runKey?: string;
}

export interface SystemRunner {
  /**
   * Runs `prompt` in the chat's session now if the chat's run slot is idle; returns `busy` instead of
   * queuing when it is not. With `allowNewSession: false` it returns `no_session` rather than start
   * one. `touchIdle: false` leaves the session's idle clock as it was.
   */
  runIfIdle(chat: ChatKey, prompt: string, opts: SystemRunOptions): Promise<SystemRunOutcome>;
  /** Sends text and raw MEDIA references (the media policy applies) through the outbox, once per `key`. */
  deliver(chat: ChatKey, key: string, text: string, media: string[]): Promise<void>;
}

// The whatsapp-messages port's types, whatever the engine (the SQLite engine: store/sqlite/whatsapp-messages.ts).

export interface SentMessage {
  /** The encoded message; empty until the send returned it. */
  message: Uint8Array;
  at: number;
}

export interface WhatsAppSentStore {
  /** Records an id before sending (kept when already there). */
  reserve(id: string, jid: string, at: number): Promise<void>;
  /** Stores the encoded content once the send returned it. */
  complete(id: string, message: Uint8Array): Promise<void>;
  get(id: string): Promise<SentMessage | undefined>;
  /** Deletes ids older than `before`, and all but the newest `keep`. */
  prune(before: number, keep: number): Promise<void>;
}

export interface WhatsAppChatStore {
  remember(chatId: string, jid: string, at: number): Promise<void>;
  /** The JID last seen for the chat id, if any. */
  jidFor(chatId: string): Promise<string | undefined>;
}

// What the WhatsApp channel keeps about messages: the ids (and content) of what it sent, for echo
// suppression and retry receipts, and the JID each chat id is answered on. The channel decides
// what they mean and for how long they count (channels/whatsapp/sent-store.ts, chat-jids.ts).
import { type Db, prepared, transaction } from './db.js';

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

export function whatsappSentStore(db: Db): WhatsAppSentStore {
  return {
    reserve: async (id, jid, at) => {
      transaction(db, () =>
        prepared(
          db,
          'INSERT INTO wa_sent (id, jid, message, at) VALUES (?, ?, ?, ?) ON CONFLICT(id) DO NOTHING',
        ).run(id, jid, new Uint8Array(0), at),
      );
    },
    complete: async (id, message) => {
      transaction(db, () => prepared(db, 'UPDATE wa_sent SET message = ? WHERE id = ?').run(message, id));
    },
    get: async (id) => {
      const row = prepared(db, 'SELECT message, at FROM wa_sent WHERE id = ?').get(id) as
        | { message: Uint8Array; at: number }
        | undefined;
      return row && { message: row.message, at: row.at };
    },
    prune: async (before, keep) => {
      transaction(db, () => {
        prepared(db, 'DELETE FROM wa_sent WHERE at < ?').run(before);
        prepared(
          db,
          'DELETE FROM wa_sent WHERE id IN (SELECT id FROM wa_sent ORDER BY at DESC LIMIT -1 OFFSET ?)',
        ).run(keep);
      });
    },
  };
}

export function whatsappChatStore(db: Db): WhatsAppChatStore {
  return {
    remember: async (chatId, jid, at) => {
      transaction(db, () =>
        prepared(
          db,
          `INSERT INTO wa_chats (chat_id, jid, updated_at) VALUES (?, ?, ?)
           ON CONFLICT(chat_id) DO UPDATE SET jid = excluded.jid, updated_at = excluded.updated_at`,
        ).run(chatId, jid, at),
      );
    },
    jidFor: async (chatId) =>
      (prepared(db, 'SELECT jid FROM wa_chats WHERE chat_id = ?').get(chatId) as { jid: string } | undefined)
        ?.jid,
  };
}

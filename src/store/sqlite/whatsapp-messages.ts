// What the WhatsApp channel keeps about messages: the ids (and content) of what it sent, for echo
// suppression and retry receipts, and the JID each chat id is answered on. The channel decides
// what they mean and for how long they count (channels/whatsapp/sent-store.ts, chat-jids.ts).

import type { WhatsAppChatStore, WhatsAppSentStore } from '../whatsapp-messages.js';
import { type Db, prepared, transaction } from './db.js';

export type { SentMessage, WhatsAppChatStore, WhatsAppSentStore } from '../whatsapp-messages.js';

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

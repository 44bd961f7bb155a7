// Where to send a reply for a chat id. A reply goes to the JID the person wrote from (a LID on
// migrated accounts): sends to a re-derived phone JID can "succeed" and never arrive (openclaw#17413).
// Kept in SQLite so the outbox can still deliver to the right JID after a restart.
import { isJidGroup } from '@whiskeysockets/baileys';
import type { Db } from '../../store/db.js';
import { isE164, pnJidFromE164 } from './jid.js';

export interface ChatJids {
  remember(chatId: string, jid: string): void;
  /** The JID to send to, or undefined when the chat id is neither known nor addressable. */
  resolve(chatId: string): string | undefined;
}

export function createChatJids(db: Db, now: () => number = Date.now): ChatJids {
  const upsert = db.prepare(
    `INSERT INTO wa_chats (chat_id, jid, updated_at) VALUES (?, ?, ?)
     ON CONFLICT(chat_id) DO UPDATE SET jid = excluded.jid, updated_at = excluded.updated_at`,
  );
  const get = db.prepare('SELECT jid FROM wa_chats WHERE chat_id = ?');
  return {
    remember(chatId, jid) {
      upsert.run(chatId, jid, now());
    },
    resolve(chatId) {
      const row = get.get(chatId) as { jid: string } | undefined;
      if (row) return row.jid;
      if (isE164(chatId)) return pnJidFromE164(chatId);
      if (isJidGroup(chatId) || /^[^@\s]+@(s\.whatsapp\.net|lid)$/.test(chatId)) return chatId;
      return undefined;
    },
  };
}

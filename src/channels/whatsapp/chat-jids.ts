// Where to send a reply for a chat id. A reply goes to the JID the person wrote from (a LID on
// migrated accounts): sends to a re-derived phone JID can "succeed" and never arrive (openclaw#17413).
// Kept in the store so the outbox can still deliver to the right JID after a restart.
import { isJidGroup } from '@whiskeysockets/baileys';
import type { WhatsAppChatStore } from '../../store/whatsapp-messages.js';
import { isE164, pnJidFromE164 } from './jid.js';

export interface ChatJids {
  remember(chatId: string, jid: string): Promise<void>;
  /** The JID to send to, or undefined when the chat id is neither known nor addressable. */
  resolve(chatId: string): Promise<string | undefined>;
}

export function createChatJids(store: WhatsAppChatStore, now: () => number = Date.now): ChatJids {
  return {
    remember: (chatId, jid) => store.remember(chatId, jid, now()),
    async resolve(chatId) {
      const known = await store.jidFor(chatId);
      if (known) return known;
      if (isE164(chatId)) return pnJidFromE164(chatId);
      if (isJidGroup(chatId) || /^[^@\s]+@(s\.whatsapp\.net|lid)$/.test(chatId)) return chatId;
      return undefined;
    },
  };
}

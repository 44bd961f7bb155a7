// A stored reply chunk as callers see it, whatever the engine, and the key of the one notice that
// tells a chat its replies expired. Pure.
import type { ChatKey, OutboxItem } from '../../core/types.js';

export interface OutboxRow {
  id: number;
  key: string;
  idx: number;
  chat: ChatKey;
  item: OutboxItem;
  status: 'pending' | 'sent' | 'failed';
  tries: number;
  error?: string;
  /** When a send of this chunk first began (set before the channel is called). */
  attemptAt?: number;
  createdAt: number;
  /** After a failed try: when the next one is due. */
  nextAt?: number;
}

/**
 * A message of a chat as agentwire's id (core/message-ref.ts) names it: the chat it is in, whether the
 * relay sent it (`own`), and the provider's id once it has one (an unsent or failed message has none).
 */
export interface MessageRefRow {
  chat: ChatKey;
  own: boolean;
  providerId?: string;
  /** For an `out:` message: whether it was delivered, is waiting, or was given up. */
  status: 'pending' | 'sent' | 'failed' | 'received';
}

/**
 * Whether an outbox row is a message of the chat (one agentwire's `out:` id may name), as opposed to
 * an edit or a reaction, which change a message and are none themselves. Every engine asks this.
 */
export const isMessageItem = (item: OutboxItem): boolean => {
  switch (item.type) {
    case 'text':
    case 'file':
    case 'url':
    case 'card':
      return true;
    case 'edit':
    case 'react':
    case 'delete':
      return false;
  }
};

/** The key prefix of the notice that tells a chat its replies were given up. */
export const NOTICE_PREFIX = 'notice:expired:';

/** True for the row that tells a chat its replies expired (it never expires itself). */
export const isExpiryNotice = (key: string): boolean => key.startsWith(NOTICE_PREFIX);

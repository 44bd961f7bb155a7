// A stored reply chunk as callers see it, whatever the engine, and the key of the one notice that
// tells a chat its replies expired. Pure.
import type { ChatKey, OutboundItem } from '../../core/types.js';

export interface OutboxRow {
  id: number;
  key: string;
  idx: number;
  chat: ChatKey;
  item: OutboundItem;
  status: 'pending' | 'sent' | 'failed';
  tries: number;
  error?: string;
  /** When a send of this chunk first began (set before the channel is called). */
  attemptAt?: number;
  createdAt: number;
  /** After a failed try: when the next one is due. */
  nextAt?: number;
}

/** The key prefix of the notice that tells a chat its replies were given up. */
export const NOTICE_PREFIX = 'notice:expired:';

/** True for the row that tells a chat its replies expired (it never expires itself). */
export const isExpiryNotice = (key: string): boolean => key.startsWith(NOTICE_PREFIX);

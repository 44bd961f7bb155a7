// What we sent, by message id, in the store so it survives restarts. Two uses:
// - `getMessage` for retry receipts, served only while young: serving any age made other relays
//   re-broadcast days-old messages after a reconnect (evolution-api#2707); unknown → undefined,
//   never an empty message (a blank bubble).
// - echo suppression: our own sends come back as `fromMe` upserts and must not start a run.
import { proto } from '@whiskeysockets/baileys';
import type { WhatsAppSentStore } from '../../store/whatsapp-messages.js';

export interface SentStoreOptions {
  now?: () => number;
  /** Retry receipts are answered for messages younger than this. */
  retryWindowMs?: number;
  /** Ids are kept this long for echo checks. */
  keepMs?: number;
  maxRows?: number;
}

export interface SentStore {
  /** Records an id before sending, so an echo racing the send's return is still recognised. */
  reserve(id: string, jid: string): Promise<void>;
  /** Stores the content once the send returned it. */
  complete(id: string, message: proto.IMessage | null | undefined): Promise<void>;
  has(id: string): Promise<boolean>;
  getMessage(id: string): Promise<proto.IMessage | undefined>;
}

export function createSentStore(store: WhatsAppSentStore, opts: SentStoreOptions = {}): SentStore {
  const now = opts.now ?? Date.now;
  const retryWindowMs = opts.retryWindowMs ?? 15 * 60_000;
  const keepMs = opts.keepMs ?? 24 * 3_600_000;
  const maxRows = opts.maxRows ?? 2_000;
  let writes = 0;
  return {
    async reserve(id, jid) {
      await store.reserve(id, jid, now());
      if (++writes % 50 === 1) await store.prune(now() - keepMs, maxRows);
    },
    async complete(id, message) {
      if (message) await store.complete(id, proto.Message.encode(message).finish());
    },
    has: async (id) => (await store.get(id)) !== undefined,
    async getMessage(id) {
      const row = await store.get(id);
      if (!row || row.message.byteLength === 0 || now() - row.at > retryWindowMs) return undefined;
      return proto.Message.decode(row.message);
    },
  };
}

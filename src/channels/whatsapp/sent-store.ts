// What we sent, by message id, in SQLite so it survives restarts. Two uses:
// - `getMessage` for retry receipts, served only while young: serving any age made other relays
//   re-broadcast days-old messages after a reconnect (evolution-api#2707); unknown → undefined,
//   never an empty message (a blank bubble).
// - echo suppression: our own sends come back as `fromMe` upserts and must not start a run.
import { proto } from '@whiskeysockets/baileys';
import type { Db } from '../../store/db.js';

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
  reserve(id: string, jid: string): void;
  /** Stores the content once the send returned it. */
  complete(id: string, message: proto.IMessage | null | undefined): void;
  has(id: string): boolean;
  getMessage(id: string): proto.IMessage | undefined;
}

export function createSentStore(db: Db, opts: SentStoreOptions = {}): SentStore {
  const now = opts.now ?? Date.now;
  const retryWindowMs = opts.retryWindowMs ?? 15 * 60_000;
  const keepMs = opts.keepMs ?? 24 * 3_600_000;
  const maxRows = opts.maxRows ?? 2_000;
  const insert = db.prepare(
    'INSERT INTO wa_sent (id, jid, message, at) VALUES (?, ?, ?, ?) ON CONFLICT(id) DO NOTHING',
  );
  const update = db.prepare('UPDATE wa_sent SET message = ? WHERE id = ?');
  const get = db.prepare('SELECT message, at FROM wa_sent WHERE id = ?');
  const pruneAge = db.prepare('DELETE FROM wa_sent WHERE at < ?');
  const pruneCount = db.prepare(
    'DELETE FROM wa_sent WHERE id IN (SELECT id FROM wa_sent ORDER BY at DESC LIMIT -1 OFFSET ?)',
  );
  let writes = 0;
  return {
    reserve(id, jid) {
      insert.run(id, jid, new Uint8Array(0), now());
      if (++writes % 50 === 1) {
        pruneAge.run(now() - keepMs);
        pruneCount.run(maxRows);
      }
    },
    complete(id, message) {
      if (message) update.run(proto.Message.encode(message).finish(), id);
    },
    has(id) {
      return get.get(id) !== undefined;
    },
    getMessage(id) {
      const row = get.get(id) as { message: Uint8Array; at: number } | undefined;
      if (!row || row.message.byteLength === 0 || now() - row.at > retryWindowMs) return undefined;
      return proto.Message.decode(row.message);
    },
  };
}

// The Twilio channel's own tables: delivery status per provider message, recipients we must not keep
// sending to (unsubscribed, outside the WhatsApp window), the refusal rate limit, and the poll cursor.
import { type Db, type Migration, migrate } from '../../store/db.js';
import { type DeliveryStatus, nextStatus } from './status.js';

export const twilioMigration: Migration = {
  module: 'twilio',
  steps: [
    `CREATE TABLE twilio_delivery (
       sid TEXT PRIMARY KEY, chat_id TEXT NOT NULL, status TEXT NOT NULL,
       error_code TEXT, updated_at INTEGER NOT NULL);
     CREATE TABLE twilio_blocked (chat_id TEXT PRIMARY KEY, code TEXT NOT NULL, at INTEGER NOT NULL);
     CREATE TABLE twilio_refusals (sender TEXT PRIMARY KEY, at INTEGER NOT NULL);
     CREATE TABLE twilio_poll_seen (sid TEXT PRIMARY KEY, seen_at INTEGER NOT NULL);
     CREATE TABLE twilio_state (key TEXT PRIMARY KEY, value TEXT NOT NULL);`,
  ],
};

export interface Delivery {
  sid: string;
  chatId: string;
  status: DeliveryStatus;
  errorCode?: string;
  updatedAt: number;
}

const DAY = 86_400_000;

export interface TwilioStore {
  recordSent(sid: string, chatId: string, status: string): void;
  /** Applies a status callback monotonically; returns the status now stored, or undefined if unknown sid. */
  recordStatus(sid: string, status: string, errorCode?: string): DeliveryStatus | undefined;
  delivery(sid: string): Delivery | undefined;
  block(chatId: string, code: string): void;
  blocked(chatId: string): string | undefined;
  unblock(chatId: string): void;
  /** True (and remembered) when this sender has not been refused in the last day. */
  claimRefusal(sender: string): boolean;
  pollSeen(sid: string): boolean;
  markPollSeen(sid: string): void;
  getState(key: string): string | undefined;
  setState(key: string, value: string): void;
  prune(): void;
}

export function createTwilioStore(db: Db, now: () => number = Date.now): TwilioStore {
  migrate(db, [twilioMigration]);
  const q = {
    insertSent: db.prepare(
      `INSERT INTO twilio_delivery (sid, chat_id, status, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT(sid) DO NOTHING`,
    ),
    getDelivery: db.prepare('SELECT * FROM twilio_delivery WHERE sid = ?'),
    setDelivery: db.prepare(
      'UPDATE twilio_delivery SET status = ?, error_code = ?, updated_at = ? WHERE sid = ?',
    ),
    block: db.prepare(
      'INSERT INTO twilio_blocked (chat_id, code, at) VALUES (?, ?, ?) ON CONFLICT(chat_id) DO UPDATE SET code = excluded.code, at = excluded.at',
    ),
    blocked: db.prepare('SELECT code FROM twilio_blocked WHERE chat_id = ?'),
    unblock: db.prepare('DELETE FROM twilio_blocked WHERE chat_id = ?'),
    claimRefusal: db.prepare(
      `INSERT INTO twilio_refusals (sender, at) VALUES (?, ?)
       ON CONFLICT(sender) DO UPDATE SET at = excluded.at WHERE twilio_refusals.at < ?`,
    ),
    seen: db.prepare('SELECT 1 FROM twilio_poll_seen WHERE sid = ?'),
    markSeen: db.prepare(
      'INSERT INTO twilio_poll_seen (sid, seen_at) VALUES (?, ?) ON CONFLICT(sid) DO NOTHING',
    ),
    getState: db.prepare('SELECT value FROM twilio_state WHERE key = ?'),
    setState: db.prepare(
      'INSERT INTO twilio_state (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
    ),
  };
  return {
    recordSent: (sid, chatId, status) => void q.insertSent.run(sid, chatId, status, now()),
    recordStatus(sid, status, errorCode) {
      const row = q.getDelivery.get(sid) as { status: string; error_code: string | null } | undefined;
      if (!row) return undefined;
      const next = nextStatus(row.status, status);
      if (next !== row.status) q.setDelivery.run(next, errorCode ?? row.error_code, now(), sid);
      return next as DeliveryStatus;
    },
    delivery(sid) {
      const row = q.getDelivery.get(sid) as
        | {
            sid: string;
            chat_id: string;
            status: DeliveryStatus;
            error_code: string | null;
            updated_at: number;
          }
        | undefined;
      if (!row) return undefined;
      return {
        sid: row.sid,
        chatId: row.chat_id,
        status: row.status,
        errorCode: row.error_code ?? undefined,
        updatedAt: row.updated_at,
      };
    },
    block: (chatId, code) => void q.block.run(chatId, code, now()),
    blocked: (chatId) => (q.blocked.get(chatId) as { code: string } | undefined)?.code,
    unblock: (chatId) => void q.unblock.run(chatId),
    claimRefusal(sender) {
      const t = now();
      return Number(q.claimRefusal.run(sender, t, t - DAY).changes) > 0;
    },
    pollSeen: (sid) => q.seen.get(sid) !== undefined,
    markPollSeen: (sid) => void q.markSeen.run(sid, now()),
    getState: (key) => (q.getState.get(key) as { value: string } | undefined)?.value,
    setState: (key, value) => void q.setState.run(key, value),
    prune() {
      const t = now();
      db.prepare('DELETE FROM twilio_poll_seen WHERE seen_at < ?').run(t - 14 * DAY);
      db.prepare('DELETE FROM twilio_refusals WHERE at < ?').run(t - DAY);
      db.prepare('DELETE FROM twilio_delivery WHERE updated_at < ?').run(t - 30 * DAY);
    },
  };
}

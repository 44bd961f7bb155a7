// What the Twilio channel keeps: delivery status per provider message, recipients we must not keep
// sending to (unsubscribed, outside the WhatsApp window), the refusal rate limit, and the poll
// cursor with the messages the poll already saw. The channel decides what a status means
// (channels/twilio/status.ts, handed in as `next`).

import type { TwilioSendStore } from '../twilio-sends.js';
import { type Db, type Migration, prepared, transaction } from './db.js';

export type { TwilioDelivery, TwilioSendStore } from '../twilio-sends.js';

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

const DAY = 86_400_000;

type DeliveryRow = {
  sid: string;
  chat_id: string;
  status: string;
  error_code: string | null;
  updated_at: number;
};

export function twilioSendStore(db: Db): TwilioSendStore {
  const deliveryRow = (sid: string) =>
    prepared(db, 'SELECT * FROM twilio_delivery WHERE sid = ?').get(sid) as DeliveryRow | undefined;
  const write = (fn: () => void) => transaction(db, fn);
  return {
    // This and unblock run once per message, each one statement, which is its own transaction:
    // no BEGIN and COMMIT around them.
    saveTwilioSend: async (sid, chatId, status, at) => {
      prepared(
        db,
        `INSERT INTO twilio_delivery (sid, chat_id, status, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT(sid) DO NOTHING`,
      ).run(sid, chatId, status, at);
    },
    recordStatus: async (sid, status, errorCode, at, next) =>
      transaction(db, () => {
        const row = deliveryRow(sid);
        if (!row) return undefined;
        const now = next(row.status, status);
        if (now !== row.status)
          prepared(
            db,
            'UPDATE twilio_delivery SET status = ?, error_code = ?, updated_at = ? WHERE sid = ?',
          ).run(now, errorCode ?? row.error_code, at, sid);
        return now;
      }),
    delivery: async (sid) => {
      const row = deliveryRow(sid);
      if (!row) return undefined;
      return {
        sid: row.sid,
        chatId: row.chat_id,
        status: row.status,
        ...(row.error_code !== null && { errorCode: row.error_code }),
        updatedAt: row.updated_at,
      };
    },
    block: async (chatId, code, at) =>
      write(() => {
        prepared(
          db,
          'INSERT INTO twilio_blocked (chat_id, code, at) VALUES (?, ?, ?) ON CONFLICT(chat_id) DO UPDATE SET code = excluded.code, at = excluded.at',
        ).run(chatId, code, at);
      }),
    blocked: async (chatId) =>
      (
        prepared(db, 'SELECT code FROM twilio_blocked WHERE chat_id = ?').get(chatId) as
          | { code: string }
          | undefined
      )?.code,
    unblock: async (chatId) => {
      prepared(db, 'DELETE FROM twilio_blocked WHERE chat_id = ?').run(chatId);
    },
    claimRefusal: async (sender, at) =>
      transaction(
        db,
        () =>
          Number(
            prepared(
              db,
              `INSERT INTO twilio_refusals (sender, at) VALUES (?, ?)
               ON CONFLICT(sender) DO UPDATE SET at = excluded.at WHERE twilio_refusals.at < ?`,
            ).run(sender, at, at - DAY).changes,
          ) > 0,
      ),
    markPollSeen: async (sid, at) =>
      transaction(
        db,
        () =>
          Number(
            prepared(
              db,
              'INSERT INTO twilio_poll_seen (sid, seen_at) VALUES (?, ?) ON CONFLICT(sid) DO NOTHING',
            ).run(sid, at).changes,
          ) > 0,
      ),
    pollSeen: async (sid) =>
      prepared(db, 'SELECT 1 FROM twilio_poll_seen WHERE sid = ?').get(sid) !== undefined,
    getState: async (key) =>
      (prepared(db, 'SELECT value FROM twilio_state WHERE key = ?').get(key) as { value: string } | undefined)
        ?.value,
    setState: async (key, value) =>
      write(() => {
        prepared(
          db,
          'INSERT INTO twilio_state (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
        ).run(key, value);
      }),
    prune: async (at) =>
      write(() => {
        prepared(db, 'DELETE FROM twilio_poll_seen WHERE seen_at < ?').run(at - 14 * DAY);
        prepared(db, 'DELETE FROM twilio_refusals WHERE at < ?').run(at - DAY);
        prepared(db, 'DELETE FROM twilio_delivery WHERE updated_at < ?').run(at - 30 * DAY);
      }),
  };
}

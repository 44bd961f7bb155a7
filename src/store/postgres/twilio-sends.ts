// What the Twilio channel keeps, on PostgreSQL (the rules of store/twilio-sends.ts): delivery status
// per provider message (a callback applied under the row's lock, so two racing callbacks cannot both
// move it from the same stored status), blocked recipients, the refusal rate limit, the poll's ids.
import type { TwilioSendStore } from '../twilio-sends.js';
import { inTx, type Pool } from './pool.js';

const DAY = 86_400_000;

interface DeliveryRow {
  sid: string;
  chat_id: string;
  status: string;
  error_code: string | null;
  updated_at: number;
}

export function pgTwilioSendStore(pool: Pool): TwilioSendStore {
  const changed = async (sql: string, params: unknown[]) =>
    ((await pool.query(sql, params)).rowCount ?? 0) > 0;
  return {
    saveTwilioSend: async (sid, chatId, status, at) => {
      await pool.query(
        `INSERT INTO twilio_delivery (sid, chat_id, status, updated_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (sid) DO NOTHING`,
        [sid, chatId, status, at],
      );
    },
    recordStatus: (sid, status, errorCode, at, next) =>
      inTx(pool, [], async (c) => {
        const r = await c.query<DeliveryRow>('SELECT * FROM twilio_delivery WHERE sid = $1 FOR UPDATE', [
          sid,
        ]);
        const row = r.rows[0];
        if (!row) return undefined;
        const now = next(row.status, status);
        if (now !== row.status)
          await c.query(
            'UPDATE twilio_delivery SET status = $2, error_code = $3, updated_at = $4 WHERE sid = $1',
            [sid, now, errorCode ?? row.error_code, at],
          );
        return now;
      }),
    delivery: async (sid) => {
      const row = (await pool.query<DeliveryRow>('SELECT * FROM twilio_delivery WHERE sid = $1', [sid]))
        .rows[0];
      if (!row) return undefined;
      return {
        sid: row.sid,
        chatId: row.chat_id,
        status: row.status,
        ...(row.error_code !== null && { errorCode: row.error_code }),
        updatedAt: row.updated_at,
      };
    },
    block: async (chatId, code, at) => {
      await pool.query(
        `INSERT INTO twilio_blocked (chat_id, code, at) VALUES ($1, $2, $3)
         ON CONFLICT (chat_id) DO UPDATE SET code = excluded.code, at = excluded.at`,
        [chatId, code, at],
      );
    },
    blocked: async (chatId) =>
      (await pool.query<{ code: string }>('SELECT code FROM twilio_blocked WHERE chat_id = $1', [chatId]))
        .rows[0]?.code,
    unblock: async (chatId) => {
      await pool.query('DELETE FROM twilio_blocked WHERE chat_id = $1', [chatId]);
    },
    claimRefusal: (sender, at) =>
      changed(
        `INSERT INTO twilio_refusals AS r (sender, at) VALUES ($1, $2)
         ON CONFLICT (sender) DO UPDATE SET at = excluded.at WHERE r.at < $3`,
        [sender, at, at - DAY],
      ),
    markPollSeen: (sid, at) =>
      changed('INSERT INTO twilio_poll_seen (sid, seen_at) VALUES ($1, $2) ON CONFLICT (sid) DO NOTHING', [
        sid,
        at,
      ]),
    pollSeen: async (sid) =>
      (await pool.query('SELECT 1 FROM twilio_poll_seen WHERE sid = $1', [sid])).rows.length > 0,
    getState: async (key) =>
      (await pool.query<{ value: string }>('SELECT value FROM twilio_state WHERE key = $1', [key])).rows[0]
        ?.value,
    setState: async (key, value) => {
      await pool.query(
        'INSERT INTO twilio_state (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
        [key, value],
      );
    },
    prune: (at) =>
      inTx(pool, [], async (c) => {
        await c.query('DELETE FROM twilio_poll_seen WHERE seen_at < $1', [at - 14 * DAY]);
        await c.query('DELETE FROM twilio_refusals WHERE at < $1', [at - DAY]);
        await c.query('DELETE FROM twilio_delivery WHERE updated_at < $1', [at - 30 * DAY]);
      }),
  };
}

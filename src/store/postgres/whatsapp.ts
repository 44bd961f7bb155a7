// The WhatsApp channel's state on PostgreSQL (the rules of store/whatsapp-auth.ts and
// store/whatsapp-messages.ts): credentials and Signal keys as the channel's JSON text, written all or
// none; the ids and encoded content of what it sent (BYTEA); the JID each chat is answered on.
import type { WhatsAppAuthStore } from '../whatsapp-auth.js';
import type { WhatsAppChatStore, WhatsAppSentStore } from '../whatsapp-messages.js';
import { assertLeader } from './fence.js';
import { inTx, type Pool } from './pool.js';

export function pgWhatsAppAuthStore(pool: Pool): WhatsAppAuthStore {
  return {
    readCreds: async () => {
      const r = await pool.query<{ data: string; logged_out_at: number | null }>(
        'SELECT data, logged_out_at FROM wa_creds WHERE id = 1',
      );
      const row = r.rows[0];
      return row && { data: row.data, loggedOutAt: row.logged_out_at };
    },
    saveCreds: (data, at, fence) =>
      inTx(pool, [], async (c) => {
        await assertLeader(c, fence);
        await c.query(
          `INSERT INTO wa_creds (id, data, logged_out_at, updated_at) VALUES (1, $1, NULL, $2)
           ON CONFLICT (id) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at`,
          [data, at],
        );
      }),
    markLoggedOut: (at, fence) =>
      inTx(pool, [], async (c) => {
        await assertLeader(c, fence);
        await c.query('UPDATE wa_creds SET logged_out_at = $1 WHERE id = 1', [at]);
      }),
    readKeys: async (type, ids) => {
      const r = await pool.query<{ id: string; data: string }>(
        'SELECT id, data FROM wa_keys WHERE type = $1 AND id = ANY($2::text[])',
        [type, ids],
      );
      return new Map(r.rows.map((row) => [row.id, row.data]));
    },
    writeKeys: (changes, fence) =>
      inTx(pool, [], async (c) => {
        await assertLeader(c, fence);
        for (const k of changes) {
          if (k.data === null)
            await c.query('DELETE FROM wa_keys WHERE type = $1 AND id = $2', [k.type, k.id]);
          else
            await c.query(
              'INSERT INTO wa_keys (type, id, data) VALUES ($1, $2, $3) ON CONFLICT (type, id) DO UPDATE SET data = excluded.data',
              [k.type, k.id, k.data],
            );
        }
      }),
    clearKeys: (fence) =>
      inTx(pool, [], async (c) => {
        await assertLeader(c, fence);
        await c.query('DELETE FROM wa_keys');
      }),
    forget: () =>
      inTx(pool, [], async (c) => {
        for (const table of ['wa_creds', 'wa_keys', 'wa_sent', 'wa_chats'])
          await c.query(`DELETE FROM ${table}`);
      }),
  };
}

export function pgWhatsAppSentStore(pool: Pool): WhatsAppSentStore {
  return {
    reserve: async (id, jid, at) => {
      await pool.query(
        `INSERT INTO wa_sent (id, jid, message, at) VALUES ($1, $2, '\\x', $3) ON CONFLICT (id) DO NOTHING`,
        [id, jid, at],
      );
    },
    complete: async (id, message) => {
      await pool.query('UPDATE wa_sent SET message = $2 WHERE id = $1', [id, Buffer.from(message)]);
    },
    get: async (id) => {
      const r = await pool.query<{ message: Buffer; at: number }>(
        'SELECT message, at FROM wa_sent WHERE id = $1',
        [id],
      );
      const row = r.rows[0];
      // A plain Uint8Array, as the SQLite engine returns: callers see no Buffer-only behaviour.
      return row && { message: new Uint8Array(row.message), at: row.at };
    },
    prune: (before, keep) =>
      inTx(pool, [], async (c) => {
        await c.query('DELETE FROM wa_sent WHERE at < $1', [before]);
        await c.query('DELETE FROM wa_sent WHERE id IN (SELECT id FROM wa_sent ORDER BY at DESC OFFSET $1)', [
          keep,
        ]);
      }),
  };
}

export function pgWhatsAppChatStore(pool: Pool): WhatsAppChatStore {
  return {
    remember: async (chatId, jid, at) => {
      await pool.query(
        `INSERT INTO wa_chats (chat_id, jid, updated_at) VALUES ($1, $2, $3)
         ON CONFLICT (chat_id) DO UPDATE SET jid = excluded.jid, updated_at = excluded.updated_at`,
        [chatId, jid, at],
      );
    },
    jidFor: async (chatId) =>
      (await pool.query<{ jid: string }>('SELECT jid FROM wa_chats WHERE chat_id = $1', [chatId])).rows[0]
        ?.jid,
  };
}

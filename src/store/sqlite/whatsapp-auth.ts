// The WhatsApp channel's credentials and Signal keys. They live here instead of loose JSON files: a
// crash or a full disk mid-write rolls a transaction back instead of truncating a file, which is
// how other relays lost (and then silently re-minted) the linked identity. The store keeps them as
// the channel's JSON text (Baileys' BufferJSON); what they mean is the channel's business.

import type { StoredCreds, WhatsAppAuthStore } from '../whatsapp-auth.js';
import { type Db, type Migration, prepared, transaction } from './db.js';
import { assertLeader } from './ownership-sqlite.js';

export type { KeyChange, StoredCreds, WhatsAppAuthStore } from '../whatsapp-auth.js';

export const whatsappMigration: Migration = {
  module: 'whatsapp',
  steps: [
    `CREATE TABLE wa_creds (
       id INTEGER PRIMARY KEY CHECK (id = 1),
       data TEXT NOT NULL,
       logged_out_at INTEGER,
       updated_at INTEGER NOT NULL
     );
     CREATE TABLE wa_keys (
       type TEXT NOT NULL,
       id TEXT NOT NULL,
       data TEXT NOT NULL,
       PRIMARY KEY (type, id)
     ) WITHOUT ROWID;
     CREATE TABLE wa_sent (
       id TEXT PRIMARY KEY,
       jid TEXT NOT NULL,
       message BLOB NOT NULL,
       at INTEGER NOT NULL
     );
     CREATE INDEX wa_sent_at ON wa_sent (at);
     CREATE TABLE wa_chats (
       chat_id TEXT PRIMARY KEY,
       jid TEXT NOT NULL,
       updated_at INTEGER NOT NULL
     );`,
  ],
};

type CredsRow = { data: string; logged_out_at: number | null };

export function readCredsRow(db: Db): StoredCreds | undefined {
  const row = prepared(db, 'SELECT data, logged_out_at FROM wa_creds WHERE id = 1').get() as
    | CredsRow
    | undefined;
  return row && { data: row.data, loggedOutAt: row.logged_out_at };
}

export function whatsappAuthStore(db: Db): WhatsAppAuthStore {
  return {
    readCreds: async () => readCredsRow(db),
    saveCreds: async (data, at, fence) => {
      transaction(db, () => {
        assertLeader(db, fence);
        prepared(
          db,
          `INSERT INTO wa_creds (id, data, logged_out_at, updated_at) VALUES (1, ?, NULL, ?)
           ON CONFLICT(id) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at`,
        ).run(data, at);
      });
    },
    markLoggedOut: async (at, fence) => {
      transaction(db, () => {
        assertLeader(db, fence);
        prepared(db, 'UPDATE wa_creds SET logged_out_at = ? WHERE id = 1').run(at);
      });
    },
    readKeys: async (type, ids) => {
      const get = prepared(db, 'SELECT data FROM wa_keys WHERE type = ? AND id = ?');
      const out = new Map<string, string>();
      for (const id of ids) {
        const row = get.get(type, id) as { data: string } | undefined;
        if (row) out.set(id, row.data);
      }
      return out;
    },
    writeKeys: async (changes, fence) => {
      const upsert = prepared(
        db,
        'INSERT INTO wa_keys (type, id, data) VALUES (?, ?, ?) ON CONFLICT(type, id) DO UPDATE SET data = excluded.data',
      );
      const remove = prepared(db, 'DELETE FROM wa_keys WHERE type = ? AND id = ?');
      transaction(db, () => {
        assertLeader(db, fence);
        for (const c of changes) {
          if (c.data === null) remove.run(c.type, c.id);
          else upsert.run(c.type, c.id, c.data);
        }
      });
    },
    clearKeys: async (fence) => {
      transaction(db, () => {
        assertLeader(db, fence);
        prepared(db, 'DELETE FROM wa_keys').run();
      });
    },
    forget: async () => {
      transaction(db, () => {
        for (const table of ['wa_creds', 'wa_keys', 'wa_sent', 'wa_chats'])
          prepared(db, `DELETE FROM ${table}`).run();
      });
    },
  };
}

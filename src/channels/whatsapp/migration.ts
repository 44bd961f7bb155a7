// The WhatsApp channel's own tables. Credentials and Signal keys live here instead of loose JSON
// files: a crash or a full disk mid-write rolls a transaction back instead of truncating a file,
// which is how other relays lost (and then silently re-minted) the linked identity.
import type { Migration } from '../../store/db.js';

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

// The names under which staged outbound files are served to a provider that fetches media by URL
// (Twilio), with their type, size and expiry (media/host.ts owns the files and the policy). Kept in
// the store so URLs handed to the provider survive a relay restart.

import type { MediaLinkStore } from '../media-links.js';
import { type Db, type Migration, prepared, transaction } from './db.js';

export type { MediaLink, MediaLinkStore } from '../media-links.js';

export const mediaHostMigration: Migration = {
  module: 'media_host',
  steps: [
    `CREATE TABLE media_host (
       name TEXT PRIMARY KEY, mime_type TEXT NOT NULL, size_bytes INTEGER NOT NULL, expires_at INTEGER NOT NULL)`,
  ],
};

export function mediaLinkStore(db: Db): MediaLinkStore {
  return {
    add: async (name, l) => {
      transaction(db, () =>
        prepared(
          db,
          'INSERT INTO media_host (name, mime_type, size_bytes, expires_at) VALUES (?, ?, ?, ?)',
        ).run(name, l.mimeType, l.sizeBytes, l.expiresAt),
      );
    },
    get: async (name) => {
      const row = prepared(db, 'SELECT mime_type, size_bytes, expires_at FROM media_host WHERE name = ?').get(
        name,
      ) as { mime_type: string; size_bytes: number; expires_at: number } | undefined;
      return row && { mimeType: row.mime_type, sizeBytes: row.size_bytes, expiresAt: row.expires_at };
    },
    expired: async (now) =>
      (prepared(db, 'SELECT name FROM media_host WHERE expires_at <= ?').all(now) as { name: string }[]).map(
        (r) => r.name,
      ),
    remove: async (name) => {
      transaction(db, () => prepared(db, 'DELETE FROM media_host WHERE name = ?').run(name));
    },
  };
}

// Staged outbound files' names, types, sizes and expiry on PostgreSQL (the rules of
// store/media-links.ts): URLs handed to a provider outlive a restart, and any relay can serve them.
import type { MediaLinkStore } from '../media-links.js';
import type { Pool } from './pool.js';

export function pgMediaLinkStore(pool: Pool): MediaLinkStore {
  return {
    add: async (name, l) => {
      await pool.query(
        'INSERT INTO media_host (name, mime_type, size_bytes, expires_at) VALUES ($1, $2, $3, $4)',
        [name, l.mimeType, l.sizeBytes, l.expiresAt],
      );
    },
    get: async (name) => {
      const r = await pool.query<{ mime_type: string; size_bytes: number; expires_at: number }>(
        'SELECT mime_type, size_bytes, expires_at FROM media_host WHERE name = $1',
        [name],
      );
      const row = r.rows[0];
      return row && { mimeType: row.mime_type, sizeBytes: row.size_bytes, expiresAt: row.expires_at };
    },
    expired: async (now) =>
      (
        await pool.query<{ name: string }>(
          'SELECT name FROM media_host WHERE expires_at <= $1 ORDER BY name',
          [now],
        )
      ).rows.map((r) => r.name),
    remove: async (name) => {
      await pool.query('DELETE FROM media_host WHERE name = $1', [name]);
    },
  };
}

// Outbound files for channels that send media by URL (Twilio fetches `MediaUrl` itself). What arrives
// here is already the media policy's private copy, made when the file was checked (stage.ts: that is
// what makes a later swap of the agent's folder or file harmless). It is copied once more into the
// hosted folder under a random 256-bit token and served only until the token expires, with headers
// that keep agent-written bytes from ever being active content (serve.ts). The URL names no local
// path; an unknown, malformed or expired name is a plain 404. Tokens live in SQLite so URLs handed to
// the provider survive a relay restart.
import { randomBytes } from 'node:crypto';
import { constants, createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type Db, type Migration, migrate } from '../store/db.js';
import { extensionFor } from './inbound.js';

export const mediaHostMigration: Migration = {
  module: 'media_host',
  steps: [
    `CREATE TABLE media_host (
       name TEXT PRIMARY KEY, mime_type TEXT NOT NULL, size_bytes INTEGER NOT NULL, expires_at INTEGER NOT NULL)`,
  ],
};

export type StageResult =
  | { ok: true; name: string; sizeBytes: number; expiresAt: number }
  | { ok: false; error: string };

export interface ServedFile {
  mimeType: string;
  sizeBytes: number;
  open(): Readable;
}

export interface MediaHost {
  /** Copies `path` into the staging folder; the returned name is the URL's last segment. */
  stage(path: string, mimeType: string): Promise<StageResult>;
  /** The file behind a URL name, if the name is well-formed, known and not expired. */
  lookup(name: string): ServedFile | undefined;
  /** Public URL for a staged name under `base` (e.g. `https://host/twilio/inbound/media`). */
  urlFor(base: string, name: string): string;
  /** Deletes expired files and rows; returns how many went. */
  sweep(): Promise<number>;
}

const NAME = /^[A-Za-z0-9_-]{43}\.[a-z0-9]{1,5}$/;

export function createMediaHost(opts: {
  db: Db;
  dir: string;
  ttlSeconds: number;
  now?: () => number;
}): MediaHost {
  const { db, dir } = opts;
  const now = opts.now ?? Date.now;
  migrate(db, [mediaHostMigration]);
  const insert = db.prepare(
    'INSERT INTO media_host (name, mime_type, size_bytes, expires_at) VALUES (?, ?, ?, ?)',
  );
  const get = db.prepare('SELECT mime_type, size_bytes, expires_at FROM media_host WHERE name = ?');
  const expired = db.prepare('SELECT name FROM media_host WHERE expires_at <= ?');
  const remove = db.prepare('DELETE FROM media_host WHERE name = ?');

  return {
    async stage(path, mimeType) {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const name = `${randomBytes(32).toString('base64url')}.${extensionFor(mimeType)}`;
      const target = join(dir, name);
      try {
        // O_NOFOLLOW: the source is a copy in the relay's own private folder, never a link; should one
        // appear there, the open fails instead of copying whatever it points at.
        const source = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
        await pipeline(source.createReadStream(), createWriteStream(target, { flags: 'wx', mode: 0o600 }));
        const { size } = await stat(target);
        const expiresAt = now() + opts.ttlSeconds * 1000;
        insert.run(name, mimeType, size, expiresAt);
        return { ok: true, name, sizeBytes: size, expiresAt };
      } catch (err) {
        await rm(target, { force: true });
        return { ok: false, error: `cannot stage file: ${(err as NodeJS.ErrnoException).code ?? 'error'}` };
      }
    },
    lookup(name) {
      if (!NAME.test(name)) return undefined;
      const row = get.get(name) as { mime_type: string; size_bytes: number; expires_at: number } | undefined;
      if (!row || row.expires_at <= now()) return undefined;
      const file = join(dir, name);
      return { mimeType: row.mime_type, sizeBytes: row.size_bytes, open: () => createReadStream(file) };
    },
    urlFor: (base, name) => `${base.replace(/\/+$/, '')}/${name}`,
    async sweep() {
      const rows = expired.all(now()) as { name: string }[];
      for (const { name } of rows) {
        await rm(join(dir, name), { force: true });
        remove.run(name);
      }
      return rows.length;
    },
  };
}

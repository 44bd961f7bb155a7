// Outbound files for channels that send media by URL (Twilio fetches `MediaUrl` itself). What arrives
// here is already the media policy's private copy, made when the file was checked (stage.ts: that is
// what makes a later swap of the agent's folder or file harmless). It is copied once more into the
// hosted folder under a random 256-bit token and served only until the token expires, with headers
// that keep agent-written bytes from ever being active content (serve.ts). The URL names no local
// path; an unknown, malformed or expired name is a plain 404. Tokens live in the store
// (store/media-links.ts) so URLs handed to the provider survive a relay restart.
import { randomBytes } from 'node:crypto';
import { constants, createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { MediaLinkStore } from '../store/media-links.js';
import { extensionFor } from './inbound.js';

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
  lookup(name: string): Promise<ServedFile | undefined>;
  /** Public URL for a staged name under `base` (e.g. `https://host/twilio/inbound/media`). */
  urlFor(base: string, name: string): string;
  /** Deletes expired files and rows; returns how many went. */
  sweep(): Promise<number>;
}

const NAME = /^[A-Za-z0-9_-]{43}\.[a-z0-9]{1,5}$/;

export function createMediaHost(opts: {
  links: MediaLinkStore;
  dir: string;
  ttlSeconds: number;
  now?: () => number;
}): MediaHost {
  const { links, dir } = opts;
  const now = opts.now ?? Date.now;

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
        await links.add(name, { mimeType, sizeBytes: size, expiresAt });
        return { ok: true, name, sizeBytes: size, expiresAt };
      } catch (err) {
        await rm(target, { force: true });
        return { ok: false, error: `cannot stage file: ${(err as NodeJS.ErrnoException).code ?? 'error'}` };
      }
    },
    async lookup(name) {
      if (!NAME.test(name)) return undefined;
      const link = await links.get(name);
      if (!link || link.expiresAt <= now()) return undefined;
      const file = join(dir, name);
      return { mimeType: link.mimeType, sizeBytes: link.sizeBytes, open: () => createReadStream(file) };
    },
    urlFor: (base, name) => `${base.replace(/\/+$/, '')}/${name}`,
    async sweep() {
      const names = await links.expired(now());
      for (const name of names) {
        await rm(join(dir, name), { force: true });
        await links.remove(name);
      }
      return names.length;
    },
  };
}

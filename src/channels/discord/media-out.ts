// One outbound file read for upload: a regular file (no symlink at the last step) under the size cap,
// the smaller of media.maxOutboundMb and what Discord takes from a bot in a message (10 MiB where the
// server has no boost), and the name it is shown under.
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { extname } from 'node:path';
import { sanitizeLine } from '../../core/line.js';
import { limitText, sizeText } from '../../core/size-text.js';
import { extensionFor } from '../../media/inbound.js';

export const DISCORD_UPLOAD_MAX = 10 * 1024 * 1024;

export type ReadResult =
  | { ok: true; data: Buffer }
  | { ok: false; error: string; notice: (fileName: string) => string };

export async function readForUpload(path: string, maxBytes: number): Promise<ReadResult> {
  const cap = Math.min(maxBytes, DISCORD_UPLOAD_MAX);
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
    const st = await handle.stat();
    if (!st.isFile()) return { ok: false, error: 'not a regular file', notice: failedNotice };
    if (st.size > cap) {
      return {
        ok: false,
        error: 'too large',
        notice: (n) =>
          `(The file ${safeName(n)} is ${sizeText(st.size, cap)}, over the ${limitText(cap)} Discord takes, so it was not sent.)`,
      };
    }
    const data = Buffer.alloc(st.size);
    const { bytesRead } = await handle.read(data, 0, st.size, 0);
    return { ok: true, data: data.subarray(0, bytesRead) };
  } catch (err) {
    return {
      ok: false,
      error: (err as NodeJS.ErrnoException).code ?? (err as Error).message,
      notice: failedNotice,
    };
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

const safeName = (n: string) => `"${sanitizeLine(n, 80)}"`;
const failedNotice = (n: string) => `(The file ${safeName(n)} could not be sent.)`;

/**
 * The name Discord shows: the agent's file name cut to safe characters (Discord builds the
 * attachment's address from it), with an extension that matches the type, so an image still previews.
 */
export function uploadName(fileName: string, mimeType: string): string {
  const base =
    fileName
      .replace(/[^A-Za-z0-9._-]+/g, '_')
      .replace(/^[._]+/, '')
      .slice(0, 80) || 'file';
  return extname(base) ? base : `${base}.${extensionFor(mimeType)}`;
}

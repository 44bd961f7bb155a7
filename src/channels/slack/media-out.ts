// One approved file read for upload: a regular file, no symlink at the last step, under the size cap.
// Read whole (files.uploadV2 needs the length first; the cap bounds the memory).
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { sanitizeLine } from '../../core/line.js';
import { limitText, sizeText } from '../../core/size-text.js';

export type Read = { ok: true; data: Buffer } | { ok: false; tooLarge?: number; error: string };

export async function readForUpload(path: string, maxBytes: number): Promise<Read> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
    const st = await handle.stat();
    if (!st.isFile()) return { ok: false, error: 'not a regular file' };
    if (st.size > maxBytes) return { ok: false, tooLarge: st.size, error: 'too large' };
    const data = Buffer.alloc(st.size);
    let at = 0;
    while (at < st.size) {
      const { bytesRead } = await handle.read(data, at, st.size - at, at);
      if (bytesRead === 0) break;
      at += bytesRead;
    }
    return { ok: true, data: data.subarray(0, at) };
  } catch (err) {
    return { ok: false, error: (err as NodeJS.ErrnoException).code ?? (err as Error).message };
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

export const oversizeNotice = (fileName: string, sizeBytes: number, maxBytes: number): string =>
  `(Attachment "${sanitizeLine(fileName, 100)}" not sent: it is ${sizeText(sizeBytes, maxBytes)}, over the ${limitText(maxBytes)} limit.)`;

export const failedNotice = (fileName: string): string =>
  `(Attachment "${sanitizeLine(fileName, 100)}" could not be sent.)`;

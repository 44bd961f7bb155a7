// Pure, and one small reader: which Bot API method sends an approved file, and the file opened for
// upload (a regular file, no symlink at the last step, under the size cap).
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { sanitizeLine } from '../../core/line.js';
import { limitText, sizeText } from '../../core/size-text.js';

export type SendMethod = 'sendPhoto' | 'sendVideo' | 'sendVoice' | 'sendAudio' | 'sendDocument';

/** Bots upload at most 50 MB, and a photo at most 10 MB (core.telegram.org/bots/api#sending-files). */
export const BOT_API_UPLOAD_MAX = 50 * 1024 * 1024;
export const PHOTO_MAX = 10 * 1024 * 1024;

export function methodFor(mimeType: string, sizeBytes: number): SendMethod {
  const m = mimeType.split(';')[0]!.trim().toLowerCase();
  if (['image/jpeg', 'image/png', 'image/webp'].includes(m) && sizeBytes <= PHOTO_MAX) return 'sendPhoto';
  if (m === 'video/mp4') return 'sendVideo';
  // Telegram plays a voice message only from OGG/Opus; other audio goes to its music player.
  if (m === 'audio/ogg' || m === 'audio/opus') return 'sendVoice';
  if (m === 'audio/mpeg' || m === 'audio/mp4' || m === 'audio/x-m4a') return 'sendAudio';
  return 'sendDocument';
}

export type Opened =
  | { ok: true; stream: Readable; sizeBytes: number }
  | { ok: false; tooLarge?: number; error: string };

export async function openForUpload(path: string, maxBytes: number): Promise<Opened> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
    const st = await handle.stat();
    if (!st.isFile()) throw Object.assign(new Error('not a regular file'), { code: 'ENOTFILE' });
    if (st.size > maxBytes) {
      await handle.close();
      return { ok: false, tooLarge: st.size, error: 'too large' };
    }
    // The stream owns the handle from here and closes it at its end; reading stops at the size seen.
    return {
      ok: true,
      stream: handle.createReadStream({ start: 0, end: Math.max(0, st.size - 1) }),
      sizeBytes: st.size,
    };
  } catch (err) {
    await handle?.close().catch(() => undefined);
    return { ok: false, error: (err as NodeJS.ErrnoException).code ?? (err as Error).message };
  }
}

export const oversizeNotice = (fileName: string, sizeBytes: number, maxBytes: number): string =>
  `(Attachment "${sanitizeLine(fileName, 100)}" not sent: it is ${sizeText(sizeBytes, maxBytes)}, over the ${limitText(maxBytes)} limit.)`;

export const failedNotice = (fileName: string): string =>
  `(Attachment "${sanitizeLine(fileName, 100)}" could not be sent.)`;

// Pure: which WhatsApp message an approved attachment becomes, and what the user is told instead when
// it cannot be sent. Media always goes to Baileys as bytes we read, never as `{ url }` (which reads
// local paths and fetches any address).
import type { AnyMessageContent } from '@whiskeysockets/baileys';
import { sanitizeLine } from '../../core/line.js';
import { limitText, sizeText } from '../../core/size-text.js';
import type { SendResult } from '../../core/types.js';
import { closeCodeOf } from './close-policy.js';

/** WhatsApp shows images and videos inline up to about 16 MB; bigger ones go as documents. */
export const INLINE_MEDIA_MAX_BYTES = 16 * 1024 * 1024;

export type SendKind = 'image' | 'video' | 'voice' | 'audio' | 'document';

/**
 * True for an Ogg stream whose first packet is an Opus header. The MIME type comes from the file
 * name, and `.ogg` is often Vorbis: sent as a voice note that would be a note nobody can play.
 */
export function isOggOpus(head: Uint8Array): boolean {
  const b = Buffer.from(head.buffer, head.byteOffset, Math.min(head.byteLength, 128));
  return b.subarray(0, 4).toString('latin1') === 'OggS' && b.includes('OpusHead', 0, 'latin1');
}

export function sendKindFor(mimeType: string, sizeBytes: number, head?: Uint8Array): SendKind {
  const m = mimeType.split(';')[0]!.trim().toLowerCase();
  const inline = sizeBytes <= INLINE_MEDIA_MAX_BYTES;
  if (inline && (m === 'image/jpeg' || m === 'image/png')) return 'image';
  if (inline && (m === 'video/mp4' || m === 'video/3gpp')) return 'video';
  if (m === 'audio/ogg' || m === 'audio/opus') return head && isOggOpus(head) ? 'voice' : 'document';
  if (['audio/mpeg', 'audio/mp4', 'audio/aac', 'audio/amr'].includes(m)) return 'audio';
  return 'document';
}

export interface FileForSend {
  data: Buffer;
  mimeType: string;
  fileName: string;
  caption?: string;
}

export function contentForFile(f: FileForSend): { content: AnyMessageContent; captionAfter?: string } {
  const kind = sendKindFor(f.mimeType, f.data.byteLength, f.data);
  const caption = f.caption?.trim() ? f.caption : undefined;
  const withCaption = <T extends object>(c: T): T => (caption ? { ...c, caption } : c);
  switch (kind) {
    case 'image':
      return { content: withCaption({ image: f.data, mimetype: f.mimeType }) };
    case 'video':
      return { content: withCaption({ video: f.data, mimetype: f.mimeType }) };
    case 'voice':
      // WhatsApp plays voice notes only with this exact mime type (openclaw rewrites audio/ogg too).
      return {
        content: { audio: f.data, ptt: true, mimetype: 'audio/ogg; codecs=opus' },
        captionAfter: caption,
      };
    case 'audio':
      return { content: { audio: f.data, mimetype: f.mimeType }, captionAfter: caption };
    case 'document':
      return { content: withCaption({ document: f.data, mimetype: f.mimeType, fileName: f.fileName }) };
    default: {
      const never: never = kind;
      throw new Error(`unknown send kind ${never}`);
    }
  }
}

export function oversizeNotice(fileName: string, sizeBytes: number, maxBytes: number): string {
  return `(Attachment "${sanitizeLine(fileName, 100)}" not sent: it is ${sizeText(sizeBytes, maxBytes)}, over the ${limitText(maxBytes)} limit.)`;
}

export function failedNotice(fileName: string): string {
  return `(Attachment "${sanitizeLine(fileName, 100)}" could not be sent.)`;
}

/**
 * A send error as a value. Only a lost connection, a timeout or rate limiting is worth the outbox
 * retrying; anything WhatsApp rejected will be rejected again.
 */
export function sendError(err: unknown): Extract<SendResult, { ok: false }> {
  const code = closeCodeOf(err);
  const message = (err as Error)?.message ?? String(err);
  const retryable = code === undefined || [408, 428, 429, 500, 503].includes(code);
  return code === undefined
    ? { ok: false, error: message, retryable }
    : { ok: false, error: message, retryable, code: String(code) };
}

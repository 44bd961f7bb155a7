// One inbound attachment to disk: refused before any download when Telegram's declared size is over
// the cap (or over the 20 MB a bot may download at all), then getFile and a download streamed to the
// inbound folder and capped by bytes read, since a declared size can be missing or wrong.
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { limitText } from '../../core/size-text.js';
import type { InboundMedia } from '../../core/types.js';
import { inboundDirOf, saveInbound } from '../../media/inbound.js';
import type { FileRef } from './normalize.js';

/** The Bot API serves files to bots up to this size (core.telegram.org/bots/api#getfile). */
export const BOT_API_DOWNLOAD_MAX = 20 * 1024 * 1024;

export interface MediaInDeps {
  getFile: (fileId: string) => Promise<{ file_path?: string; file_size?: number }>;
  /** The download address of a file_path (holds the token: never logged). */
  urlFor: (filePath: string) => string;
  /** The received-files root; each chat's files go to its own folder under it. */
  dir: string;
  maxBytes: number;
  timeoutMs?: number;
}

export type MediaOutcome =
  | { ok: true; media: InboundMedia }
  | { ok: false; userMessage: string; log: string };

const LABEL: Record<InboundMedia['kind'], string> = {
  image: 'photo',
  audio: 'audio file',
  voice: 'voice message',
  video: 'video',
  document: 'document',
  sticker: 'sticker',
};

export async function fetchInbound(ref: FileRef, deps: MediaInDeps, chatId: string): Promise<MediaOutcome> {
  const label = LABEL[ref.kind];
  const cap = Math.min(deps.maxBytes, BOT_API_DOWNLOAD_MAX);
  const tooLarge = (size: number | undefined): MediaOutcome => ({
    ok: false,
    userMessage: `Your ${label} is over the ${limitText(cap)} limit, so it was not passed on.`,
    log: `too_large: ${size ?? 'unknown'} bytes`,
  });
  if (ref.tooLarge || (ref.sizeBytes !== undefined && ref.sizeBytes > cap)) return tooLarge(ref.sizeBytes);
  const failed = (why: string): MediaOutcome => ({
    ok: false,
    userMessage: `Your ${label} could not be downloaded. Please send it again.`,
    log: why,
  });
  let filePath: string | undefined;
  try {
    const file = await deps.getFile(ref.fileId);
    if (file.file_size !== undefined && file.file_size > cap) return tooLarge(file.file_size);
    filePath = file.file_path;
  } catch (err) {
    return failed(`getFile: ${(err as Error).message}`);
  }
  if (!filePath) return failed('getFile gave no file_path');
  let body: WebReadableStream<Uint8Array>;
  try {
    const res = await fetch(deps.urlFor(filePath), {
      signal: AbortSignal.timeout(deps.timeoutMs ?? 120_000),
      redirect: 'error',
    });
    if (!res.ok || !res.body) return failed(`download: HTTP ${res.status}`);
    body = res.body as WebReadableStream<Uint8Array>;
  } catch (err) {
    // The error of fetch names no URL (and so no token); its cause may.
    return failed(`download: ${(err as Error).name}`);
  }
  const saved = await saveInbound(Readable.fromWeb(body), {
    dir: inboundDirOf(deps.dir, 'telegram', chatId),
    maxBytes: cap,
    mimeType: ref.mimeType,
  });
  if (!saved.ok) return saved.reason === 'too_large' ? tooLarge(undefined) : failed(`save: ${saved.message}`);
  return {
    ok: true,
    media: {
      kind: ref.kind,
      path: saved.path,
      mimeType: ref.mimeType,
      sizeBytes: saved.sizeBytes,
      ...(ref.fileName && { fileName: ref.fileName }),
    },
  };
}

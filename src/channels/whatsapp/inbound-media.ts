// One inbound attachment to disk: downloaded (capped), re-requested from the phone once when
// WhatsApp's server no longer has it, optionally transcribed when it is a voice note.
import type { WAMessage } from '@whiskeysockets/baileys';
import { limitText } from '../../core/size-text.js';
import type { InboundMedia } from '../../core/types.js';
import type { DownloadResult } from './media-download.js';
import { classify, type MediaRef, type NormalizeContext } from './normalize.js';

export interface InboundMediaDeps {
  /** Downloads into the received files of `chatId` (its own folder). */
  download: (ref: MediaRef, chatId: string) => Promise<DownloadResult>;
  /** Asks the phone to upload the media again (Baileys' updateMediaMessage). */
  reupload?: (msg: WAMessage) => Promise<WAMessage>;
  maxBytes: number;
}

export type MediaOutcome =
  | { ok: true; media: InboundMedia }
  | { ok: false; userMessage: string; log: string };

const LABEL: Record<InboundMedia['kind'], string> = {
  image: 'photo',
  audio: 'audio file',
  voice: 'voice note',
  video: 'video',
  document: 'document',
  sticker: 'sticker',
};

export async function fetchInboundMedia(
  msg: WAMessage,
  ref: MediaRef,
  ctx: NormalizeContext,
  deps: InboundMediaDeps,
  chatId: string,
): Promise<MediaOutcome> {
  let result = await deps.download(ref, chatId);
  let current = ref;
  if (!result.ok && result.reason === 'expired' && deps.reupload) {
    try {
      const updated = await deps.reupload(msg);
      const again = classify(updated, 'notify', { ...ctx, offlineWindowMs: Number.POSITIVE_INFINITY });
      if (again.type === 'message' && again.media) {
        current = again.media;
        result = await deps.download(current, chatId);
      }
    } catch (err) {
      result = { ok: false, reason: 'expired', message: `re-upload failed: ${(err as Error).message}` };
    }
  }
  const label = LABEL[ref.kind];
  if (result.ok) {
    const media: InboundMedia = {
      kind: current.kind,
      path: result.path,
      mimeType: current.mimeType,
      sizeBytes: result.sizeBytes,
    };
    if (current.fileName) media.fileName = current.fileName;
    return { ok: true, media };
  }
  const userMessage =
    result.reason === 'too_large'
      ? `Your ${label} is over the ${limitText(deps.maxBytes)} limit, so it was not passed on.`
      : result.reason === 'expired'
        ? `Your ${label} is no longer available on WhatsApp's servers. Please send it again.`
        : `Your ${label} could not be downloaded. Please send it again.`;
  return { ok: false, userMessage, log: `${result.reason}: ${result.message}` };
}

// Inbound attachments are streamed to disk under a generated name and cut off by bytes actually
// read: a declared size can lie, and a file over the cap is deleted, never half-kept.
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { mkdir, open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { limitText } from '../core/size-text.js';
import { type ChannelName, type ChatKey, chatKey, type InboundMediaKind } from '../core/types.js';
import { chatFolderName } from '../core/workspace.js';

export type SaveResult =
  | { ok: true; path: string; sizeBytes: number }
  | { ok: false; reason: 'too_large' | 'failed'; message: string };

class TooLarge extends Error {}

const EXT_BY_MIME: Record<string, string> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'audio/ogg': 'ogg',
  'audio/mpeg': 'mp3',
  'audio/mp4': 'm4a',
  'audio/aac': 'aac',
  'audio/amr': 'amr',
  'video/mp4': 'mp4',
  'video/3gpp': '3gp',
  'application/pdf': 'pdf',
  'text/plain': 'txt',
  'text/vcard': 'vcf',
};

/** A safe file extension for a MIME type; never derived from a sender's file name. */
export function extensionFor(mimeType: string): string {
  const base = mimeType.split(';')[0]?.trim().toLowerCase() ?? '';
  return EXT_BY_MIME[base] ?? 'bin';
}

export function mediaKindFor(mimeType: string): InboundMediaKind {
  const m = mimeType.toLowerCase();
  if (m.startsWith('image/webp')) return 'sticker';
  if (m.startsWith('image/')) return 'image';
  if (m.startsWith('audio/ogg')) return 'voice';
  if (m.startsWith('audio/')) return 'audio';
  if (m.startsWith('video/')) return 'video';
  return 'document';
}

/**
 * Pure: the folder of one chat's received files, `<root>/<chat folder>` (the per-chat workspace's
 * naming). Each chat has its own so a sandboxed run is shown its own chat's files and no other's.
 */
export function inboundChatDir(root: string, chat: ChatKey): string {
  return join(root, chatFolderName(chat));
}

/** Pure: `inboundChatDir` from a channel and the chat id as the channel gives it. */
export function inboundDirOf(root: string, channel: ChannelName, chatId: string): string {
  return inboundChatDir(root, chatKey(channel, chatId));
}

/**
 * The chat's received-files folder, made private when missing: a sandbox binds it when the run
 * starts, and a warm process started before the chat's first attachment must still see it.
 */
export function madeInboundChatDir(root: string, chat: ChatKey): string {
  const dir = inboundChatDir(root, chat);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

/** Streams `source` into `dir` as `<time>-<random>.<ext>`, mode 0600, aborting past `maxBytes`. */
export async function saveInbound(
  source: AsyncIterable<Uint8Array> | NodeJS.ReadableStream,
  opts: { dir: string; maxBytes: number; mimeType: string },
): Promise<SaveResult> {
  await mkdir(opts.dir, { recursive: true, mode: 0o700 });
  const path = join(
    opts.dir,
    `${Date.now()}-${randomBytes(8).toString('hex')}.${extensionFor(opts.mimeType)}`,
  );
  let size = 0;
  const max = opts.maxBytes;
  async function* capped(src: AsyncIterable<Uint8Array>) {
    for await (const chunk of src) {
      size += chunk.byteLength;
      if (size > max) throw new TooLarge();
      yield chunk;
    }
  }
  try {
    // Open before streaming so the file exists when a failing source makes us delete it.
    const handle = await open(path, 'wx', 0o600);
    await pipeline(source as AsyncIterable<Uint8Array>, capped, handle.createWriteStream());
    return { ok: true, path, sizeBytes: size };
  } catch (err) {
    await rm(path, { force: true });
    if (err instanceof TooLarge) {
      return { ok: false, reason: 'too_large', message: `larger than ${limitText(max)}` };
    }
    return { ok: false, reason: 'failed', message: (err as Error).message };
  }
}

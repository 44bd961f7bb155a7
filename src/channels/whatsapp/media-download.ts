// Inbound media: fetched from WhatsApp's CDN, decrypted and streamed to disk, capped by bytes read.
// Done here rather than with Baileys' downloadContentFromMessage because (rc14): its fetch cannot be
// aborted and its `pipe` does not forward source errors (a dropped connection hangs the download and
// throws an unhandled stream error), its 404/410 re-upload branch never fires (it reads `error.status`
// from a Boom), and it fetches whatever host the sender's message names. Keys come from Baileys.
// The sender writes the URL, so it must be https on *.whatsapp.net AND (guarded-get.ts) every address
// that name resolves to must be public, with the connection pinned to the checked address: a poisoned
// or rebinding DNS answer for a WhatsApp name cannot point the download at this machine or the LAN.
import { createDecipheriv, createHmac, timingSafeEqual } from 'node:crypto';
import { getMediaKeys, getUrlFromDirectPath } from '@whiskeysockets/baileys';
import { limitText } from '../../core/size-text.js';
import type { Resolver } from '../../media/address.js';
import { guardedGet, type Transport } from '../../media/guarded-get.js';
import { type SaveResult, saveInbound } from '../../media/inbound.js';
import type { MediaRef } from './normalize.js';

const MAC_LEN = 10;

export type DownloadResult = SaveResult | { ok: false; reason: 'expired'; message: string };

/** The network edge of downloads, injectable for tests (DNS answers, the connection itself). */
export interface DownloadNet {
  resolve?: Resolver;
  transport?: Transport;
}

export interface DownloadOptions {
  dir: string;
  maxBytes: number;
  timeoutMs?: number;
  net?: DownloadNet;
}

export const whatsappCdnOnly = (url: URL): boolean =>
  url.protocol === 'https:' && (url.hostname === 'whatsapp.net' || url.hostname.endsWith('.whatsapp.net'));

function mediaUrl(ref: MediaRef): URL | undefined {
  const { directPath, url } = ref.content;
  try {
    if (directPath) {
      const host = url ? new URL(url).host : undefined;
      return new URL(getUrlFromDirectPath(directPath, host));
    }
    return url ? new URL(url) : undefined;
  } catch {
    return undefined;
  }
}

/** Decrypts WhatsApp media (AES-256-CBC, then a 10-byte HMAC-SHA256 over iv + ciphertext). */
async function* decrypt(
  body: AsyncIterable<Uint8Array>,
  keys: { iv: Uint8Array; cipherKey: Uint8Array; macKey?: Uint8Array },
): AsyncGenerator<Buffer> {
  const aes = createDecipheriv('aes-256-cbc', keys.cipherKey, keys.iv);
  const hmac = createHmac('sha256', keys.macKey ?? Buffer.alloc(32)).update(keys.iv);
  let tail = Buffer.alloc(0);
  for await (const chunk of body) {
    tail = Buffer.concat([tail, chunk]);
    const usable = tail.length - MAC_LEN; // the MAC is held back until the end
    if (usable <= 0) continue;
    const enc = tail.subarray(0, usable);
    tail = Buffer.from(tail.subarray(usable));
    hmac.update(enc);
    const out = aes.update(enc);
    if (out.length) yield out;
  }
  if (tail.length !== MAC_LEN || !timingSafeEqual(hmac.digest().subarray(0, MAC_LEN), tail)) {
    throw new Error('media failed its integrity check');
  }
  const last = aes.final();
  if (last.length) yield last;
}

export async function downloadMedia(ref: MediaRef, opts: DownloadOptions): Promise<DownloadResult> {
  const url = mediaUrl(ref);
  const mediaKey = ref.content.mediaKey;
  if (!url || !mediaKey) return { ok: false, reason: 'failed', message: 'the message carries no media link' };
  if (!whatsappCdnOnly(url)) {
    return { ok: false, reason: 'failed', message: 'media link is not on the WhatsApp CDN' };
  }
  const controller = new AbortController();
  const signal = AbortSignal.any([controller.signal, AbortSignal.timeout(opts.timeoutMs ?? 120_000)]);
  try {
    // No redirects: WhatsApp's CDN answers directly, and a redirect would name a host nobody checked.
    const res = await guardedGet(url.href, {
      signal,
      maxRedirects: 0,
      headers: { Origin: 'https://web.whatsapp.com' },
      ...opts.net,
    });
    if (!res.ok) {
      const message =
        res.reason === 'too_many_redirects'
          ? 'the media server answered with a redirect (refused)'
          : res.message;
      return { ok: false, reason: 'failed', message };
    }
    if (res.status === 404 || res.status === 410) {
      return { ok: false, reason: 'expired', message: `media no longer on the server (${res.status})` };
    }
    if (res.status < 200 || res.status > 299)
      return { ok: false, reason: 'failed', message: `media fetch failed (${res.status})` };
    // Cheap early refusal when the server admits the size; the real cap is on bytes read below.
    const declared = Number(res.headers['content-length'] ?? Number.NaN);
    if (Number.isFinite(declared) && declared > opts.maxBytes + 16 + MAC_LEN) {
      return {
        ok: false,
        reason: 'too_large',
        message: `larger than ${limitText(opts.maxBytes)}`,
      };
    }
    const keys = await getMediaKeys(mediaKey, ref.mediaType);
    return await saveInbound(decrypt(res.body, keys), {
      dir: opts.dir,
      maxBytes: opts.maxBytes,
      mimeType: ref.mimeType,
    });
  } catch (err) {
    return { ok: false, reason: 'failed', message: (err as Error).message };
  } finally {
    controller.abort(); // frees the connection when the body was not read to the end (or on a redirect)
  }
}

// One inbound attachment to disk. Its address comes inside the message, so it is fetched only from
// Discord's CDN over https (or from the configured API root's own origin: a proxy, or the tests'
// fake on 127.0.0.1), never from wherever a payload points; refused before any download when its
// declared size is over the cap, and the download itself is cut off by bytes read (media/inbound.ts).
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { limitText } from '../../core/size-text.js';
import { saveInbound } from '../../media/inbound.js';
import type { FetchedAttachment } from '../inbound-common.js';
import type { AttachmentRef } from './normalize.js';

const CDN_HOSTS = new Set(['cdn.discordapp.com', 'media.discordapp.net']);

/** Pure: whether an attachment address may be fetched. */
export function attachmentUrlAllowed(url: string, apiRoot: string | undefined): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  if (u.username || u.password) return false;
  if (u.protocol === 'https:' && CDN_HOSTS.has(u.hostname) && (u.port === '' || u.port === '443'))
    return true;
  if (!apiRoot) return false;
  return u.origin === new URL(apiRoot).origin;
}

export interface MediaInDeps {
  dir: string;
  maxBytes: number;
  apiRoot: string | undefined;
  timeoutMs?: number;
}

const LABEL: Record<AttachmentRef['kind'], string> = {
  image: 'image',
  audio: 'audio file',
  voice: 'voice message',
  video: 'video',
  document: 'file',
  sticker: 'sticker',
};

export async function fetchAttachment(ref: AttachmentRef, deps: MediaInDeps): Promise<FetchedAttachment> {
  const label = LABEL[ref.kind];
  const tooLarge = (size: number | undefined): FetchedAttachment => ({
    ok: false,
    userMessage: `Your ${label} is over the ${limitText(deps.maxBytes)} limit, so it was not passed on.`,
    log: `too_large: ${size ?? 'unknown'} bytes`,
  });
  const failed = (why: string): FetchedAttachment => ({
    ok: false,
    userMessage: `Your ${label} could not be downloaded. Please send it again.`,
    log: why,
  });
  if (ref.sizeBytes > deps.maxBytes) return tooLarge(ref.sizeBytes);
  if (!attachmentUrlAllowed(ref.url, deps.apiRoot)) return failed('not a Discord CDN address');
  let body: WebReadableStream<Uint8Array>;
  try {
    const res = await fetch(ref.url, {
      signal: AbortSignal.timeout(deps.timeoutMs ?? 120_000),
      // A redirect could lead anywhere: the address was checked, not where it would send us.
      redirect: 'error',
    });
    if (!res.ok || !res.body) return failed(`download: HTTP ${res.status}`);
    body = res.body as WebReadableStream<Uint8Array>;
  } catch (err) {
    return failed(`download: ${(err as Error).name}`);
  }
  const saved = await saveInbound(Readable.fromWeb(body), {
    dir: deps.dir,
    maxBytes: deps.maxBytes,
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
      fileName: ref.fileName,
    },
  };
}

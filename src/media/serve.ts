// How a staged file is served from the relay's public media URL. The bytes are agent-written and the
// URL is public: an HTML page or an SVG (which runs script) served as such would run in the relay's
// origin in anyone's browser. Only what the channels need to show inline keeps its type (raster
// images, audio, video, PDF, plain text); every response also gets `Content-Security-Policy: sandbox`
// (no script, no same-origin, no forms even if a browser decided to render it) and `nosniff`.
// Everything else is sent as an opaque download.

export interface Serving {
  contentType: string;
  disposition: 'inline' | 'attachment';
}

/** Shown inline: what WhatsApp (through Twilio) and MMS display, none of which can run script. */
const INLINE = new Set([
  'image/jpeg',
  'image/png',
  'image/gif',
  'image/webp',
  'image/heic',
  'image/bmp',
  'audio/mpeg',
  'audio/mp4',
  'audio/ogg',
  'audio/wav',
  'audio/aac',
  'audio/amr',
  'audio/webm',
  'video/mp4',
  'video/quicktime',
  'video/webm',
  'video/3gpp',
  'application/pdf',
  'text/plain',
]);

/**
 * Plain data files Twilio accepts as MMS media (it checks the Content-Type it fetches, and refuses
 * `application/octet-stream`): they keep their type so the send works, but go out as a download.
 * No browser runs them as a document.
 */
const DOWNLOAD_TYPED = new Set(['text/vcard', 'text/csv', 'text/calendar']);

export function servingFor(mimeType: string): Serving {
  const base = mimeType.split(';')[0]?.trim().toLowerCase() ?? '';
  if (INLINE.has(base)) return { contentType: base, disposition: 'inline' };
  if (DOWNLOAD_TYPED.has(base)) return { contentType: base, disposition: 'attachment' };
  return { contentType: 'application/octet-stream', disposition: 'attachment' };
}

/** Response headers for a served file (and for HEAD). */
export function servedHeaders(mimeType: string, sizeBytes: number): Record<string, string> {
  const s = servingFor(mimeType);
  return {
    'content-type': s.contentType,
    'content-disposition': s.disposition,
    'content-length': String(sizeBytes),
    'content-security-policy': 'sandbox',
    'x-content-type-options': 'nosniff',
    'cache-control': 'no-store',
  };
}

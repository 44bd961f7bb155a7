import { describe, expect, it } from 'vitest';
import { mimeTypeFor } from '../../src/media/policy.js';
import { servedHeaders, servingFor } from '../../src/media/serve.js';

// One row per type the media policy can name, plus hostile spellings: what a browser would be handed.
const table: [string, string, 'inline' | 'attachment'][] = [
  ['image/png', 'image/png', 'inline'],
  ['image/jpeg', 'image/jpeg', 'inline'],
  ['image/gif', 'image/gif', 'inline'],
  ['image/webp', 'image/webp', 'inline'],
  ['image/heic', 'image/heic', 'inline'],
  ['audio/mpeg', 'audio/mpeg', 'inline'],
  ['audio/ogg', 'audio/ogg', 'inline'],
  ['audio/mp4', 'audio/mp4', 'inline'],
  ['video/mp4', 'video/mp4', 'inline'],
  ['video/quicktime', 'video/quicktime', 'inline'],
  ['application/pdf', 'application/pdf', 'inline'],
  ['text/plain', 'text/plain', 'inline'],
  ['TEXT/PLAIN; charset=utf-8', 'text/plain', 'inline'],
  ['text/vcard', 'text/vcard', 'attachment'],
  ['text/csv', 'text/csv', 'attachment'],
  // Active content: script runs in these when a browser renders them.
  ['image/svg+xml', 'application/octet-stream', 'attachment'],
  ['text/html', 'application/octet-stream', 'attachment'],
  ['TEXT/HTML; charset=utf-8', 'application/octet-stream', 'attachment'],
  ['application/xhtml+xml', 'application/octet-stream', 'attachment'],
  ['text/xml', 'application/octet-stream', 'attachment'],
  ['application/xml', 'application/octet-stream', 'attachment'],
  ['text/javascript', 'application/octet-stream', 'attachment'],
  ['application/javascript', 'application/octet-stream', 'attachment'],
  ['text/markdown', 'application/octet-stream', 'attachment'],
  ['application/json', 'application/octet-stream', 'attachment'],
  ['application/zip', 'application/octet-stream', 'attachment'],
  ['application/msword', 'application/octet-stream', 'attachment'],
  ['application/x-shockwave-flash', 'application/octet-stream', 'attachment'],
  ['image/png, text/html', 'application/octet-stream', 'attachment'],
  ['', 'application/octet-stream', 'attachment'],
  ['application/octet-stream', 'application/octet-stream', 'attachment'],
];

describe('serving policy', () => {
  it.each(table)('%s → %s, %s', (mime, contentType, disposition) => {
    expect(servingFor(mime)).toEqual({ contentType, disposition });
  });

  it('sandboxes and never sniffs, whatever the type', () => {
    for (const [mime] of table) {
      const h = servedHeaders(mime, 12);
      expect(h['content-security-policy']).toBe('sandbox');
      expect(h['x-content-type-options']).toBe('nosniff');
      expect(h['content-length']).toBe('12');
    }
  });

  it('keeps no agent file name that maps to an active type inline', () => {
    for (const name of ['x.html', 'x.svg', 'x.htm', 'x.xhtml', 'x.js', 'x.xml', 'x.md', 'x.json']) {
      expect(servingFor(mimeTypeFor(name)).disposition, name).toBe('attachment');
    }
  });
});

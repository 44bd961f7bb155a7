// Inbound attachments (`MediaUrl0..N`). Twilio requires HTTP Basic auth on media URLs, so the account's
// credentials go along — and therefore only to Twilio's own hosts or the configured API origin, never to
// whatever URL a request names (that matters when signature checks are off). Each file is streamed into
// the inbound folder and cut off by bytes actually read; all of one message's files share one deadline.
// Twilio answers a media URL with a redirect to its CDN: every hop must pass the outbound address rules
// (guarded-get.ts), and the credentials never leave the first origin.

import { limitText } from '../../core/size-text.js';
import type { InboundMedia } from '../../core/types.js';
import type { Resolver } from '../../media/address.js';
import { guardedGet, type Transport } from '../../media/guarded-get.js';
import { mediaKindFor, saveInbound } from '../../media/inbound.js';
import type { InboundMediaRef } from './params.js';
import type { RestCredentials } from './settings.js';

export interface MediaProblem {
  index: number;
  contentType: string;
  reason: 'too_large' | 'timeout' | 'failed' | 'host';
  message: string;
}

/** The network edge of downloads, injectable for tests (DNS answers, the connection itself). */
export interface DownloadNet {
  resolve?: Resolver;
  transport?: Transport;
}

export interface DownloadOptions {
  net?: DownloadNet;
  creds?: RestCredentials;
  apiBaseUrl: string;
  dir: string;
  maxBytes: number;
  deadlineMs: number;
}

export function mediaHostAllowed(url: string, apiBaseUrl: string): boolean {
  try {
    const u = new URL(url);
    if (u.origin === new URL(apiBaseUrl).origin) return true;
    return u.protocol === 'https:' && (u.hostname === 'twilio.com' || u.hostname.endsWith('.twilio.com'));
  } catch {
    return false;
  }
}

export async function downloadAll(
  refs: readonly InboundMediaRef[],
  opts: DownloadOptions,
): Promise<{ media: InboundMedia[]; problems: MediaProblem[] }> {
  const deadline = AbortSignal.timeout(opts.deadlineMs);
  const results = await Promise.all(refs.map((ref, index) => downloadOne(ref, index, opts, deadline)));
  const media: InboundMedia[] = [];
  const problems: MediaProblem[] = [];
  for (const r of results) {
    if ('problem' in r) problems.push(r.problem);
    else media.push(r.media);
  }
  return { media, problems };
}

async function downloadOne(
  ref: InboundMediaRef,
  index: number,
  opts: DownloadOptions,
  deadline: AbortSignal,
): Promise<{ media: InboundMedia } | { problem: MediaProblem }> {
  const fail = (reason: MediaProblem['reason'], message: string) => ({
    problem: { index, contentType: ref.contentType, reason, message },
  });
  if (!mediaHostAllowed(ref.url, opts.apiBaseUrl)) return fail('host', 'not a Twilio media URL');
  const mimeType = ref.contentType.split(';')[0]!.trim().toLowerCase();
  const local = new AbortController();
  const signal = AbortSignal.any([deadline, local.signal]);
  try {
    const headers: Record<string, string> = {};
    if (opts.creds) {
      const basic = Buffer.from(`${opts.creds.username}:${opts.creds.password}`).toString('base64');
      headers.authorization = `Basic ${basic}`;
    }
    const res = await guardedGet(ref.url, {
      headers,
      signal,
      trustedOrigins: [new URL(opts.apiBaseUrl).origin],
      ...opts.net,
    });
    if (!res.ok) return fail('host', res.message);
    if (res.status < 200 || res.status > 299) return fail('failed', `HTTP ${res.status}`);
    const declared = Number(res.headers['content-length'] ?? Number.NaN);
    if (declared > opts.maxBytes) return fail('too_large', `larger than ${limitText(opts.maxBytes)}`);
    const saved = await saveInbound(res.body, { dir: opts.dir, maxBytes: opts.maxBytes, mimeType });
    if (saved.ok) {
      return {
        media: { kind: mediaKindFor(mimeType), path: saved.path, mimeType, sizeBytes: saved.sizeBytes },
      };
    }
    if (saved.reason === 'too_large') return fail('too_large', `larger than ${limitText(opts.maxBytes)}`);
    return deadline.aborted ? fail('timeout', 'download took too long') : fail('failed', 'download failed');
  } catch {
    return deadline.aborted ? fail('timeout', 'download took too long') : fail('failed', 'download failed');
  } finally {
    // Stop reading a body we gave up on (a sender that streams forever must not keep the socket).
    local.abort();
  }
}

/** A line for the agent (and the user) about an attachment that did not arrive. */
export function problemNote(p: MediaProblem): string {
  const what = `attachment ${p.index + 1} (${p.contentType.split(';')[0]})`;
  switch (p.reason) {
    case 'too_large':
      return `[${what} was not received: ${p.message}]`;
    case 'timeout':
      return `[${what} was not received: the download took too long]`;
    case 'host':
    case 'failed':
      return `[${what} could not be downloaded]`;
  }
}

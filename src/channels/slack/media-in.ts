// Inbound files: stored with the message as RemoteMedia (the URL Slack gave, no token in it) so the
// envelope is acknowledged within Slack's three seconds, and fetched just before the run: with the bot
// token in the Authorization header, only from Slack's file host (or the configured API's, for the
// tests), streamed to the inbound folder and capped by bytes read (media/inbound.ts), as every channel.
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { FetchedMedia, InboundMedia, RemoteMedia } from '../../core/types.js';
import { mediaKindFor, saveInbound } from '../../media/inbound.js';

export interface MediaInDeps {
  token: () => string | undefined;
  /** Origins the token may be sent to: https://files.slack.com, and the API root's. */
  origins: readonly string[];
  dir: string;
  maxBytes: number;
  timeoutMs?: number;
}

/** The file's name: the last part of Slack's download URL (`…/download/report.pdf`). */
export function nameOf(url: string): string {
  try {
    const last = new URL(url).pathname.split('/').filter(Boolean).at(-1);
    return last ? decodeURIComponent(last).slice(0, 200) : 'file';
  } catch {
    return 'file';
  }
}

type One = { ok: true; media: InboundMedia } | { ok: false; note: string };

async function fetchOne(r: RemoteMedia, deps: MediaInDeps): Promise<One> {
  const name = nameOf(r.url);
  const failed = (why: string): One => ({
    ok: false,
    note: `The file "${name}" could not be downloaded (${why}).`,
  });
  let origin: string;
  try {
    origin = new URL(r.url).origin;
  } catch {
    return failed('bad address');
  }
  // The token goes only where Slack keeps files: never to a host an event could name.
  if (!deps.origins.includes(origin)) return failed('not a Slack file address');
  const token = deps.token();
  if (!token) return failed('Slack is not connected');
  let body: WebReadableStream<Uint8Array>;
  try {
    const res = await fetch(r.url, {
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(deps.timeoutMs ?? 120_000),
      redirect: 'error',
    });
    if (!res.ok || !res.body) return failed(`HTTP ${res.status}`);
    // Without the files:read scope Slack answers 200 with its sign-in page instead of the file.
    if (
      (res.headers.get('content-type') ?? '').startsWith('text/html') &&
      !r.mimeType.startsWith('text/html')
    ) {
      await res.body.cancel().catch(() => undefined);
      return failed('Slack sent a web page: does the app have the files:read scope?');
    }
    body = res.body as WebReadableStream<Uint8Array>;
  } catch (err) {
    // The error of fetch names no token; its cause may name the URL only.
    return failed((err as Error).name);
  }
  const saved = await saveInbound(Readable.fromWeb(body), {
    dir: deps.dir,
    maxBytes: deps.maxBytes,
    mimeType: r.mimeType,
  });
  if (!saved.ok)
    return saved.reason === 'too_large' ? failed('over the size limit') : failed('could not be saved');
  return {
    ok: true,
    media: {
      kind: mediaKindFor(r.mimeType),
      path: saved.path,
      mimeType: r.mimeType,
      sizeBytes: saved.sizeBytes,
      fileName: name,
    },
  };
}

export async function fetchSlackMedia(
  remote: readonly RemoteMedia[],
  deps: MediaInDeps,
): Promise<FetchedMedia> {
  const out: FetchedMedia = { media: [], notes: [] };
  for (const r of remote) {
    const got = await fetchOne(r, deps);
    if (got.ok) out.media.push(got.media);
    else out.notes.push(got.note);
  }
  return out;
}

// Every URL the relay fetches on someone else's say (a media URL in a webhook, and wherever it
// redirects) goes through here. fetch() with `redirect: 'follow'` would follow a 302 to
// http://127.0.0.1:… or a name that resolves to 10.x, and hand the loopback answer to the agent as an
// attachment. So redirects are followed by hand, and each hop must pass the outbound URL rules
// (address.ts): http(s) only, no local names, every address the name resolves to public. The name is
// resolved once per hop and the connection is pinned to the address that was checked (a custom
// `lookup`), so a DNS answer that changes between check and connect (rebinding) cannot slip through.
// Origins the owner configured (twilio.apiBaseUrl) are trusted as they are; their redirects are not.
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import { defaultResolve, isLocalName, nonPublicReason, type Resolver } from './address.js';

/** One connection to make: the URL, and the address it must go to (already checked). */
export interface PinnedRequest {
  url: URL;
  address: string;
  headers: Record<string, string>;
  signal: AbortSignal;
}

/** Makes the request over the network; injectable so tests can stand in for the far edge. */
export type Transport = (req: PinnedRequest) => Promise<IncomingMessage>;

export interface GuardedGetOptions {
  /** Sent to the first URL's origin only: a redirect elsewhere never sees credentials. */
  headers?: Record<string, string>;
  signal: AbortSignal;
  /** Origins (`https://api.example.com`) whose addresses are not checked: configured by the owner. */
  trustedOrigins?: readonly string[];
  maxRedirects?: number;
  resolve?: Resolver;
  transport?: Transport;
}

export type GuardedResponse =
  | { ok: true; status: number; headers: IncomingHttpHeaders; body: IncomingMessage; url: string }
  | { ok: false; reason: 'refused' | 'too_many_redirects'; message: string };

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export async function guardedGet(start: string, opts: GuardedGetOptions): Promise<GuardedResponse> {
  const trusted = new Set(opts.trustedOrigins ?? []);
  const resolve = opts.resolve ?? defaultResolve;
  const transport = opts.transport ?? nodeTransport;
  let url = new URL(start);
  const firstOrigin = url.origin;
  for (let hop = 0; hop <= (opts.maxRedirects ?? 5); hop++) {
    const target = await checkHop(url, trusted.has(url.origin), resolve);
    if (!target.ok) return { ok: false, reason: 'refused', message: target.message };
    const headers = url.origin === firstOrigin ? { ...opts.headers } : {};
    const res = await transport({ url, address: target.address, headers, signal: opts.signal });
    const location = res.headers.location;
    if (!REDIRECTS.has(res.statusCode ?? 0) || !location) {
      return { ok: true, status: res.statusCode ?? 0, headers: res.headers, body: res, url: url.href };
    }
    res.resume(); // a redirect's body is not read; let the socket go
    try {
      url = new URL(location, url);
    } catch {
      return { ok: false, reason: 'refused', message: 'a redirect to something that is not a URL' };
    }
  }
  return { ok: false, reason: 'too_many_redirects', message: 'too many redirects' };
}

type HopCheck = { ok: true; address: string } | { ok: false; message: string };

/** The address to connect to for `url`, or why not. Pure apart from the DNS lookup. */
export async function checkHop(url: URL, trusted: boolean, resolve: Resolver): Promise<HopCheck> {
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return { ok: false, message: `${url.protocol} is not http(s)` };
  if (url.username || url.password) return { ok: false, message: 'a URL with credentials in it' };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!trusted && isLocalName(host)) return { ok: false, message: `${host} is this machine` };
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = await resolve(host.replace(/\.$/, ''));
    } catch {
      return { ok: false, message: `${host} does not resolve` };
    }
  }
  if (addresses.length === 0) return { ok: false, message: `${host} does not resolve` };
  if (!trusted) {
    // Every address, not only the one used: a name with one public and one private answer is refused.
    for (const a of addresses) {
      const why = nonPublicReason(a);
      if (why) return { ok: false, message: `${host} points at a ${why} address` };
    }
  }
  return { ok: true, address: addresses[0] as string };
}

/** http(s).request to the checked address: the name is used for Host, SNI and the certificate only. */
export const nodeTransport: Transport = (req) =>
  new Promise((resolve, reject) => {
    const family = isIP(req.address);
    // Node may ask for every address (autoSelectFamily passes `all: true`): answer with the one.
    const lookup = ((_host: string, o: { all?: boolean }, cb: (...a: unknown[]) => void) => {
      if (o?.all) cb(null, [{ address: req.address, family }]);
      else cb(null, req.address, family);
    }) as unknown as LookupFunction;
    const mod = req.url.protocol === 'https:' ? https : http;
    const r = mod.request(req.url, { method: 'GET', headers: req.headers, lookup, signal: req.signal });
    r.once('response', resolve);
    r.once('error', reject);
    r.end();
  });

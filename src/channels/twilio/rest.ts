// The twilio SDK's REST client, pointed at `twilio.apiBaseUrl`. The SDK has no base-URL option; its
// supported extension point is a custom `httpClient` (twilio-node advanced-examples/custom-http-client.md,
// and the maintainers' answer in twilio/twilio-node#326), so ours rewrites each request's origin. Every
// request is rewritten, including `*.twilio.com` hosts that TWILIO_EDGE/TWILIO_REGION would produce, so
// a client pointed at a fake server can never reach the real one. The same client reads Retry-After.
import twilio from 'twilio';
import type RequestClientNs from 'twilio/lib/base/RequestClient.js';
import { parseRetryAfter } from './errors.js';
import type { RestCredentials } from './settings.js';
import { TWILIO_API } from './settings.js';

export type TwilioClient = twilio.Twilio;
type RequestOptions<TData> = RequestClientNs.RequestOptions<TData>;

class AgentwireRequestClient extends twilio.RequestClient {
  /**
   * Until when Twilio asked not to be called again (Retry-After on its last 429 or 503). The SDK's
   * RestException keeps only status and body, so the header is read here; a rate limit is the
   * account's, not one message's, so one time for the whole client is what Twilio means.
   */
  notBefore = 0;

  constructor(private readonly base: string | undefined) {
    // We retry by error code ourselves (errors.ts); the SDK's own 429 retry would hide the count.
    // Connections are kept alive as the SDK does for api.twilio.com: a new connection (and TLS
    // handshake) per reply cost more than the rest of the send (bench/relay-overhead).
    super({ autoRetry: false, timeout: 20_000, keepAlive: true });
  }

  override async request<TData>(opts: RequestOptions<TData>) {
    const res = await super.request<TData>(this.base ? { ...opts, uri: rebase(opts.uri, this.base) } : opts);
    if (res.statusCode === 429 || res.statusCode === 503) {
      const headers = (res.headers ?? {}) as Record<string, unknown>;
      const raw = headers['retry-after'] ?? headers['Retry-After'];
      const wait = parseRetryAfter(
        typeof raw === 'string' || typeof raw === 'number' ? String(raw) : undefined,
        Date.now(),
      );
      if (wait !== undefined) this.notBefore = Date.now() + wait;
    }
    return res;
  }
}

export function rebase(uri: string, base: string): string {
  const u = new URL(uri);
  return `${base.replace(/\/+$/, '')}${u.pathname}${u.search}`;
}

export function createRestClient(creds: RestCredentials, apiBaseUrl: string): TwilioClient {
  const opts: twilio.ClientOpts = {
    accountSid: creds.accountSid,
    autoRetry: false,
    httpClient: new AgentwireRequestClient(apiBaseUrl === TWILIO_API ? undefined : apiBaseUrl),
  };
  return twilio(creds.username, creds.password, opts);
}

/** How long Twilio still asks us to wait (its last Retry-After), when it asked and it is not over. */
export function retryAfterMs(client: TwilioClient): number | undefined {
  const http = client.httpClient;
  if (!(http instanceof AgentwireRequestClient)) return undefined;
  const left = http.notBefore - Date.now();
  return left > 0 ? left : undefined;
}

/** Twilio's answer (RestException) or the transport's failure, as plain fields for classifyFailure. */
export function failureFields(err: unknown): { status?: number; code?: number | string; network?: string } {
  if (err instanceof twilio.RestException) return { status: err.status, code: err.code };
  const e = err as { code?: string; response?: { status?: number } } | undefined;
  if (e?.response?.status) return { status: e.response.status };
  return { network: typeof e?.code === 'string' ? e.code : 'unknown' };
}

// The twilio SDK's REST client, pointed at `twilio.apiBaseUrl`. The SDK has no base-URL option; its
// supported extension point is a custom `httpClient` (twilio-node advanced-examples/custom-http-client.md,
// and the maintainers' answer in twilio/twilio-node#326), so ours rewrites each request's origin. Every
// request is rewritten, including `*.twilio.com` hosts that TWILIO_EDGE/TWILIO_REGION would produce, so
// a client pointed at a fake server can never reach the real one.
import twilio from 'twilio';
import type RequestClientNs from 'twilio/lib/base/RequestClient.js';
import type { RestCredentials } from './settings.js';
import { TWILIO_API } from './settings.js';

export type TwilioClient = twilio.Twilio;
type RequestOptions<TData> = RequestClientNs.RequestOptions<TData>;

class BaseUrlRequestClient extends twilio.RequestClient {
  constructor(private readonly base: string) {
    // We retry by error code ourselves (errors.ts); the SDK's own 429 retry would hide the count.
    // Connections are kept alive as the SDK does for api.twilio.com: a new connection (and TLS
    // handshake) per reply cost more than the rest of the send (bench/relay-overhead).
    super({ autoRetry: false, timeout: 20_000, keepAlive: true });
  }

  override request<TData>(opts: RequestOptions<TData>) {
    return super.request<TData>({ ...opts, uri: rebase(opts.uri, this.base) });
  }
}

export function rebase(uri: string, base: string): string {
  const u = new URL(uri);
  return `${base.replace(/\/+$/, '')}${u.pathname}${u.search}`;
}

export function createRestClient(creds: RestCredentials, apiBaseUrl: string): TwilioClient {
  const opts: twilio.ClientOpts = { accountSid: creds.accountSid, autoRetry: false };
  if (apiBaseUrl !== TWILIO_API) opts.httpClient = new BaseUrlRequestClient(apiBaseUrl);
  return twilio(creds.username, creds.password, opts);
}

/** Twilio's answer (RestException) or the transport's failure, as plain fields for classifyFailure. */
export function failureFields(err: unknown): { status?: number; code?: number | string; network?: string } {
  if (err instanceof twilio.RestException) return { status: err.status, code: err.code };
  const e = err as { code?: string; response?: { status?: number } } | undefined;
  if (e?.response?.status) return { status: e.response.status };
  return { network: typeof e?.code === 'string' ? e.code : 'unknown' };
}

// X-Twilio-Signature is an HMAC of the URL Twilio called plus every posted parameter, so the check
// must use the public URL (behind a TLS proxy or tunnel the local request says http://127.0.0.1…), and
// all parameters, unfiltered. The SDK's validateRequest does the comparison (constant time, with and
// without the default port). Our own code only decides which URL Twilio called.
import twilio from 'twilio';

export interface RequestLike {
  protocol: string;
  originalUrl: string;
  get(name: string): string | undefined;
}

/**
 * The URLs Twilio may have signed. With a configured public URL that is the only one (the local URL a
 * proxy forwards to never counts); a fragment (Twilio connection overrides, `#rc=…`) is never sent to
 * us, so the URL is also tried without it. Without a public URL: the URL as this server received it.
 */
export function signedUrlCandidates(req: RequestLike, publicUrl: string | undefined): string[] {
  if (publicUrl) {
    const hash = publicUrl.indexOf('#');
    return hash < 0 ? [publicUrl] : [publicUrl, publicUrl.slice(0, hash)];
  }
  const host = req.get('host');
  return host ? [`${req.protocol}://${host}${req.originalUrl}`] : [];
}

export function verifySignature(
  authToken: string,
  signature: string | undefined,
  urls: readonly string[],
  params: Record<string, unknown>,
): boolean {
  if (!signature) return false;
  for (const url of urls) {
    try {
      if (twilio.validateRequest(authToken, signature, url, params)) return true;
    } catch {
      // A Host header that does not form a URL: not a request Twilio signed.
    }
  }
  return false;
}

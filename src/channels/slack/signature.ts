// Pure: Slack's request signature (api.slack.com/authentication/verifying-requests-from-slack).
// `v0=` + HMAC-SHA256 of `v0:<timestamp>:<raw body>` under the signing secret, compared in constant
// time; a timestamp more than five minutes from now is refused, so a captured request cannot be replayed.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export const MAX_SKEW_SECONDS = 300;

export interface SignedRequest {
  timestamp: string | string[] | undefined;
  signature: string | string[] | undefined;
  body: Buffer;
}

export const signatureOf = (secret: string, timestamp: string, body: Buffer | string): string =>
  `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:`).update(body).digest('hex')}`;

const digest = (s: string) => createHash('sha256').update(s).digest();

export function verifySignature(secret: string, req: SignedRequest, nowSeconds: number): boolean {
  const { timestamp, signature } = req;
  if (typeof timestamp !== 'string' || typeof signature !== 'string') return false;
  if (!/^\d{1,12}$/.test(timestamp)) return false;
  if (Math.abs(nowSeconds - Number(timestamp)) > MAX_SKEW_SECONDS) return false;
  // Both hashed to one length first: timingSafeEqual needs equal lengths, and a length says nothing.
  return timingSafeEqual(digest(signature), digest(signatureOf(secret, timestamp, req.body)));
}

// Who may call a hook: GitHub's `X-Hub-Signature-256: sha256=<hex>` (an HMAC-SHA256 of the raw body
// under the hook's secret, so a GitHub webhook works as is) or `Authorization: Bearer <secret>`.
// Both are compared in constant time over digests of equal length, so neither the secret's length
// nor how much of a guess matched shows in the time an answer takes. Pure.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export type HookAuth =
  | { type: 'ok'; by: 'signature' | 'bearer' }
  /** Neither header: nothing to check. */
  | { type: 'missing' }
  /** A header was there and did not match (or was malformed). */
  | { type: 'bad' };

export interface AuthHeaders {
  signature?: string | undefined;
  authorization?: string | undefined;
}

const sameDigest = (a: Buffer, b: Buffer): boolean => a.length === b.length && timingSafeEqual(a, b);
const sha256 = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

/** The bearer alone (it needs no body): `undefined` when the request has no Authorization header. */
export function checkBearer(authorization: string | undefined, secret: string): boolean | undefined {
  if (authorization === undefined) return undefined;
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization);
  if (!m?.[1]) return false;
  return sameDigest(sha256(m[1]), sha256(secret));
}

/** The signature over the raw body: `undefined` when the request carries none. */
export function checkSignature(
  signature: string | undefined,
  body: Buffer,
  secret: string,
): boolean | undefined {
  if (signature === undefined) return undefined;
  const m = /^sha256=([0-9a-fA-F]{64})$/.exec(signature.trim());
  if (!m?.[1]) return false;
  const want = createHmac('sha256', secret).update(body).digest();
  return sameDigest(Buffer.from(m[1], 'hex'), want);
}

/** Both ways, as a hook answers: a valid one of either is enough; a wrong one is never outvoted. */
export function checkHookAuth(h: AuthHeaders, body: Buffer, secret: string): HookAuth {
  const bearer = checkBearer(h.authorization, secret);
  const signed = checkSignature(h.signature, body, secret);
  if (bearer === undefined && signed === undefined) return { type: 'missing' };
  if (bearer === false || signed === false) return { type: 'bad' };
  return { type: 'ok', by: signed ? 'signature' : 'bearer' };
}

/** GitHub's header for a body and secret (tests, and docs' example of signing a request). */
export function signBody(body: Buffer | string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

// What a failed Twilio REST call means for the outbox. Pure; table-tested.
// Sources: twilio.com/docs/api/errors (20429, 21211, 21610, 21614, 21617, 63016, 63018, …).

export interface FailureInput {
  /** HTTP status, when Twilio answered. */
  status?: number;
  /** Twilio error code from the response body. */
  code?: number | string;
  /** Node/axios network error code (ECONNREFUSED, ETIMEDOUT, …) when Twilio did not answer. */
  network?: string;
}

export interface FailureClass {
  /** The outbox may try this item again later. */
  retryable: boolean;
  /** Safe to send the same chunk once more now (after a short backoff): nothing was accepted. */
  retryNow: boolean;
  /** Stop free-form sends to this recipient until they write to us again. */
  blockRecipient: boolean;
  code?: string;
  error: string;
}

const KNOWN: Record<string, string> = {
  '20003': 'Twilio rejected the credentials',
  '20429': 'Twilio rate limit (too many requests)',
  '21211': 'invalid recipient number',
  '21408': 'sending to this region is not enabled',
  '21608': 'trial accounts can only send to verified numbers',
  '21610': 'recipient unsubscribed (replied STOP)',
  '21614': 'recipient cannot receive SMS',
  '21617': 'message body over 1,600 characters',
  '21623': 'too many media in one message',
  '21658': 'a parameter is too long',
  '63007': 'no WhatsApp sender for this From address',
  '63014': 'the recipient blocked this sender',
  '63016': 'outside the WhatsApp 24-hour window (a template is needed)',
  '63018': 'WhatsApp sender rate limit',
  '63021': 'invalid WhatsApp content',
  '63030': 'unsupported parameter for WhatsApp templates',
  '63038': 'daily message limit reached',
  '11751': 'media too large',
  '63034': 'media too large',
};

/** Codes after which another free-form message would fail the same way until the user writes again. */
const BLOCKING = new Set(['21610', '63014', '63016']);
/** Connection never made: nothing reached Twilio, so an immediate second try cannot duplicate. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

export function describeCode(code: string): string | undefined {
  return KNOWN[code];
}

export function classifyFailure(f: FailureInput): FailureClass {
  const code = f.code === undefined || f.code === null ? undefined : String(f.code);
  const known = code ? KNOWN[code] : undefined;
  if (f.status === undefined) {
    const net = f.network ?? 'unknown';
    // A timeout or reset may have happened after Twilio accepted the message: leave it to the outbox
    // rather than risk a second copy now.
    return {
      retryable: true,
      retryNow: NOT_SENT.has(net),
      blockRecipient: false,
      error: `network error ${net}`,
    };
  }
  // A WhatsApp sender's rate limit outlasts one short backoff: leave the next try to the outbox.
  if (code === '63018')
    return { retryable: true, retryNow: false, blockRecipient: false, code, error: known! };
  if (code === '20429' || f.status === 429)
    return {
      retryable: true,
      retryNow: true,
      blockRecipient: false,
      code: code ?? '20429',
      error: KNOWN['20429']!,
    };
  if (f.status >= 500)
    return {
      retryable: true,
      retryNow: true,
      blockRecipient: false,
      code,
      error: `Twilio server error ${f.status}`,
    };
  return {
    retryable: false,
    retryNow: false,
    blockRecipient: code !== undefined && BLOCKING.has(code),
    code,
    error: known ?? (code ? `Twilio error ${code}` : `Twilio refused the request (HTTP ${f.status})`),
  };
}

/** The longest Retry-After taken at its word: a day (a bigger one is a broken or hostile answer). */
const MAX_RETRY_AFTER_MS = 86_400_000;

/** An HTTP Retry-After value (delay-seconds or an HTTP date, RFC 9110 §10.2.3) as a wait in ms. */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  const v = value?.trim();
  if (!v) return undefined;
  // An HTTP date always names its day and month; without letters it is neither form (Date.parse
  // would read "1.5" or "-5" as dates).
  const ms = /^\d+$/.test(v) ? Number(v) * 1000 : /[a-z]/i.test(v) ? Date.parse(v) - now : Number.NaN;
  if (!Number.isFinite(ms)) return undefined;
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(0, ms));
}

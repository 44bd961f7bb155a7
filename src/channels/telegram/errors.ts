// Pure: a failed Bot API call as a SendResult. Only what can succeed later is retryable: rate limits
// (after Telegram's own `retry_after`), server errors and the network. A 403 (the user blocked the
// bot, or it was removed from the group) and any other 4xx will be refused again, so they end at once.
import { GrammyError, HttpError } from 'grammy';
import type { SendResult } from '../../core/types.js';

export type Failure = Extract<SendResult, { ok: false }>;

/** What Telegram answers when parse_mode text has a malformed entity; the text is sent plain instead. */
export const isParseError = (err: unknown): boolean =>
  err instanceof GrammyError &&
  err.error_code === 400 &&
  /can't parse entities|can't find end/i.test(err.description);

export function sendFailure(err: unknown): Failure {
  if (err instanceof GrammyError) {
    const code = err.error_code;
    const error = `Telegram ${code}: ${err.description}`;
    if (code === 429) {
      const after = err.parameters?.retry_after;
      return {
        ok: false,
        error,
        retryable: true,
        code: '429',
        ...(typeof after === 'number' && after >= 0 && { retryAfterMs: after * 1000 }),
      };
    }
    if (code === 403) return { ok: false, error, retryable: false, code: 'blocked' };
    return { ok: false, error, retryable: code >= 500, code: String(code) };
  }
  if (err instanceof HttpError) return { ok: false, error: `network: ${err.message}`, retryable: true };
  return { ok: false, error: (err as Error)?.message ?? String(err), retryable: true };
}

// Pure: a failed REST call as a SendResult. Only what can succeed later is retryable: a rate limit
// the REST client would not wait out itself (its buckets wait the short ones), server errors and the
// network. No access to a channel (403: Missing Access 50001, Missing Permissions 50013, or a DM the
// person closed, 50007) is refused again however often it is tried: `forbidden`, and sends to that
// channel stop (send.ts). Every other 4xx ends the item at once.
import { DiscordAPIError, HTTPError, RateLimitError } from '@discordjs/rest';
import type { SendResult } from '../../core/types.js';

export type Failure = Extract<SendResult, { ok: false }>;

/** Discord's JSON error codes that mean "this bot may not post there". */
export const NO_ACCESS_CODES: ReadonlySet<number> = new Set([50001, 50007, 50013]);

export const FORBIDDEN = 'forbidden';

/** Discord's JSON error code for a message that does not exist (any more). */
export const UNKNOWN_MESSAGE = 10008;

/** A deletion Discord refused because the message is gone already: what was asked for holds. */
export const isUnknownMessage = (err: unknown): boolean =>
  err instanceof DiscordAPIError && Number(err.code) === UNKNOWN_MESSAGE;

export function sendFailure(err: unknown): Failure {
  if (err instanceof RateLimitError) {
    return {
      ok: false,
      error: `Discord rate limit (${err.scope}) on ${err.route}`,
      retryable: true,
      code: '429',
      retryAfterMs: Math.max(0, Math.ceil(err.timeToReset)),
    };
  }
  if (err instanceof DiscordAPIError) {
    const code = typeof err.code === 'number' ? err.code : Number(err.code);
    const error = `Discord ${err.status}${Number.isFinite(code) && code > 0 ? `/${code}` : ''}: ${err.message}`;
    if (err.status === 403 || NO_ACCESS_CODES.has(code))
      return { ok: false, error, retryable: false, code: FORBIDDEN };
    if (err.status === 429) return { ok: false, error, retryable: true, code: '429' };
    return { ok: false, error, retryable: err.status >= 500, code: String(err.status) };
  }
  if (err instanceof HTTPError) {
    return {
      ok: false,
      error: `Discord ${err.status}: ${err.message}`,
      retryable: err.status >= 500 || err.status === 429,
      code: String(err.status),
    };
  }
  // A timeout or a broken connection: whether Discord took the message is unknown; the outbox tries again.
  return {
    ok: false,
    error: `Discord unreachable: ${(err as Error)?.message ?? String(err)}`,
    retryable: true,
  };
}

/** For status and logs: "Missing Access" from a DiscordAPIError, else the error's message. */
export function describeFailure(err: unknown): string {
  if (err instanceof DiscordAPIError) {
    if (err.status === 401)
      return 'Discord rejected the bot token (401 Unauthorized): check discord.botToken or $DISCORD_BOT_TOKEN';
    return `Discord ${err.status}/${err.code}: ${err.message}`;
  }
  if (err instanceof HTTPError) return `Discord ${err.status}: ${err.message}`;
  return `Discord unreachable: ${(err as Error)?.message ?? String(err)}`;
}

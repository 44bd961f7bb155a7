// Pure: a failed Web API call as a SendResult, and what the failure means for the chat. Only what can
// succeed later is retryable: a rate limit (after Slack's Retry-After), server errors and the network.
// A bot removed from a channel, a deleted or archived channel, and a revoked token are refused again
// every time: they end at once (`stop`), and sends to that chat stop until it writes to the bot again.
import { ErrorCode } from '@slack/web-api';
import type { SendResult } from '../../core/types.js';

export type Failure = Extract<SendResult, { ok: false }>;

/** Sends to this conversation will fail until someone changes something in Slack. */
const CHAT_STOPS = new Set([
  'not_in_channel',
  'channel_not_found',
  'is_archived',
  'cannot_dm_bot',
  'user_disabled',
]);
/** The token itself no longer works: every chat is affected, a new token is needed. */
const AUTH_STOPS = new Set([
  'invalid_auth',
  'token_revoked',
  'account_inactive',
  'not_authed',
  'token_expired',
]);

export type Stop = 'chat' | 'auth' | undefined;

export interface Classified {
  failure: Failure;
  stop: Stop;
}

const HINT: Record<string, string> = {
  not_in_channel: 'invite the bot to the channel (/invite @bot)',
  channel_not_found: 'the channel is gone, or the bot cannot see it',
  is_archived: 'the channel is archived',
  invalid_auth: 'the bot token is wrong',
  token_revoked: 'the bot token was revoked: install the app again',
  account_inactive: 'the app was uninstalled or the workspace is gone',
};

export const hintFor = (code: string): string => HINT[code] ?? code;

interface ErrLike {
  code?: string;
  data?: { error?: string };
  retryAfter?: number;
  statusCode?: number;
  message?: string;
}

export function classifyError(err: unknown): Classified {
  const e = (err ?? {}) as ErrLike;
  switch (e.code) {
    case ErrorCode.RateLimitedError: {
      const after = typeof e.retryAfter === 'number' && e.retryAfter >= 0 ? e.retryAfter : 1;
      return {
        failure: {
          ok: false,
          error: `Slack rate limit (retry after ${after} s)`,
          retryable: true,
          code: '429',
          retryAfterMs: after * 1000,
        },
        stop: undefined,
      };
    }
    case ErrorCode.PlatformError: {
      const code = e.data?.error ?? 'unknown_error';
      const error = `Slack refused: ${code}`;
      if (CHAT_STOPS.has(code))
        return { failure: { ok: false, error, retryable: false, code }, stop: 'chat' };
      if (AUTH_STOPS.has(code))
        return { failure: { ok: false, error, retryable: false, code }, stop: 'auth' };
      // `fatal_error`, `internal_error`, `service_unavailable`: Slack's side, worth another try.
      const retryable = /^(fatal_error|internal_error|service_unavailable|request_timeout)$/.test(code);
      return { failure: { ok: false, error, retryable, code }, stop: undefined };
    }
    case ErrorCode.HTTPError: {
      const status = e.statusCode ?? 0;
      return {
        failure: {
          ok: false,
          error: `Slack HTTP ${status}`,
          retryable: status >= 500 || status === 0,
          code: String(status),
        },
        stop: undefined,
      };
    }
    case ErrorCode.RequestError:
      return {
        failure: { ok: false, error: 'network: Slack unreachable', retryable: true },
        stop: undefined,
      };
    default:
      return { failure: { ok: false, error: e.message ?? String(err), retryable: true }, stop: undefined };
  }
}

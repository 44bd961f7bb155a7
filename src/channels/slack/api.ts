// The one place a Web API client is made: the token, and the API root (Slack's, or the fake one of the
// tests). Retries are ours, not the library's: a rate limit comes back as an error with its
// Retry-After (errors.ts) so the sender decides how long a chat waits, and nothing is posted twice by
// a retry we cannot see. The library's own logger is silenced: at debug it prints request bodies.
import { LogLevel, type Logger as SlackLogger, WebClient } from '@slack/web-api';

export const DEFAULT_API_URL = 'https://slack.com/api/';

export type SlackApi = WebClient;

/** A logger for the Slack libraries: their warnings and errors at debug (they may quote payloads). */
export function quietLogger(debug: (msg: string) => void): SlackLogger {
  const say = (...m: unknown[]) => debug(m.map(String).join(' ').slice(0, 300));
  return {
    debug: () => {},
    info: () => {},
    warn: say,
    error: say,
    setLevel: () => {},
    getLevel: () => LogLevel.ERROR,
    setName: () => {},
  };
}

/** `stop`: every request is also ended by it (the channel stopping), not only by its timeout. */
export function makeApi(
  token: string,
  apiUrl: string | undefined,
  logger?: SlackLogger,
  stop?: AbortSignal,
): SlackApi {
  return new WebClient(token, {
    slackApiUrl: apiUrl ?? DEFAULT_API_URL,
    rejectRateLimitedCalls: true,
    retryConfig: { retries: 0 },
    timeout: 120_000,
    logger: logger ?? quietLogger(() => {}),
    ...(stop && { fetch: endedBy(stop) }),
  });
}

/** `fetch` whose requests also end when `stop` aborts. */
export const endedBy =
  (stop: AbortSignal) =>
  (url: string | URL | Request, init?: RequestInit): Promise<Response> =>
    fetch(url, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, stop]) : stop });

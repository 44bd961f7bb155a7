// A failed REST call as a SendResult: one row per kind of failure.
import { DiscordAPIError, HTTPError, RateLimitError } from '@discordjs/rest';
import { describe, expect, it } from 'vitest';
import { sendFailure } from '../../../src/channels/discord/errors.js';

const api = (status: number, code: number, message: string) =>
  new DiscordAPIError(
    { code, message },
    code,
    status,
    'POST',
    'https://discord.com/api/v10/channels/1/messages',
    {},
  );

describe('sendFailure', () => {
  it.each([
    ['Missing Access', api(403, 50001, 'Missing Access'), { retryable: false, code: 'forbidden' }],
    ['Missing Permissions', api(403, 50013, 'Missing Permissions'), { retryable: false, code: 'forbidden' }],
    [
      'a closed DM',
      api(403, 50007, 'Cannot send messages to this user'),
      { retryable: false, code: 'forbidden' },
    ],
    ['a bad request', api(400, 50035, 'Invalid Form Body'), { retryable: false, code: '400' }],
    ['an unknown channel', api(404, 10003, 'Unknown Channel'), { retryable: false, code: '404' }],
    ['a server error', new HTTPError(502, 'Bad Gateway', 'POST', 'u', {}), { retryable: true, code: '502' }],
    ['the network', new Error('ECONNRESET'), { retryable: true }],
  ])('%s', (_name, err, expected) => {
    expect(sendFailure(err)).toMatchObject({ ok: false, ...expected });
  });

  it('a long rate limit the REST client would not wait goes back with its wait', () => {
    const err = new RateLimitError({
      timeToReset: 120_000,
      limit: 5,
      method: 'POST',
      hash: 'h',
      url: 'u',
      route: '/channels/:id/messages',
      majorParameter: '1',
      global: false,
      retryAfter: 120_000,
      sublimitTimeout: 0,
      scope: 'user',
    });
    expect(sendFailure(err)).toMatchObject({
      ok: false,
      retryable: true,
      code: '429',
      retryAfterMs: 120_000,
    });
  });
});

import { describe, expect, it } from 'vitest';
import { cappedBackoff, decideRetry, type FailedSend, type RetryDecision } from '../../src/queue/retry.js';

const policy = { retryForMs: 60_000, backoffMs: (n: number) => Math.min(8000, 1000 * 2 ** (n - 1)) };
const base: FailedSend = { retryable: true, tries: 1, createdAt: 0, now: 1000, expires: true };

describe('decideRetry', () => {
  it.each<[string, Partial<FailedSend>, RetryDecision]>([
    ['a permanent error fails at once', { retryable: false }, { type: 'fail' }],
    ['a permanent error fails even past the deadline', { retryable: false, now: 90_000 }, { type: 'fail' }],
    ['the first transient failure waits the first backoff', {}, { type: 'retry', delayMs: 1000 }],
    ['the backoff doubles', { tries: 3 }, { type: 'retry', delayMs: 4000 }],
    ['and is capped', { tries: 50 }, { type: 'retry', delayMs: 8000 }],
    [
      'any number of tries within the time is retried',
      { tries: 1000, now: 50_000 },
      { type: 'retry', delayMs: 8000 },
    ],
    [
      'Retry-After longer than the backoff wins',
      { retryAfterMs: 20_000 },
      { type: 'retry', delayMs: 20_000 },
    ],
    [
      'Retry-After shorter than the backoff does not shorten it',
      { tries: 4, retryAfterMs: 10 },
      { type: 'retry', delayMs: 8000 },
    ],
    ['the last wait ends at the deadline', { tries: 10, now: 57_000 }, { type: 'retry', delayMs: 3000 }],
    [
      'Retry-After past the deadline is cut to it',
      { now: 50_000, retryAfterMs: 600_000 },
      { type: 'retry', delayMs: 10_000 },
    ],
    ['at the deadline it expires', { now: 60_000 }, { type: 'expire' }],
    ['past it too', { now: 9e12 }, { type: 'expire' }],
    ['a status edit gives up after its last try', { tries: 3, maxTries: 3 }, { type: 'fail' }],
    ['and is retried before it', { tries: 2, maxTries: 3 }, { type: 'retry', delayMs: 2000 }],
    [
      'the expiry notice never expires',
      { now: 9e12, expires: false, tries: 99 },
      { type: 'retry', delayMs: 8000 },
    ],
  ])('%s', (_what, input, expected) => expect(decideRetry({ ...base, ...input }, policy)).toEqual(expected));
});

describe('cappedBackoff', () => {
  it('doubles from 1 s to the cap, spread by ±20 % and never past the cap', () => {
    const low = cappedBackoff(60_000, () => 0);
    const high = cappedBackoff(60_000, () => 0.999999);
    expect([1, 2, 3, 7, 8, 100].map(low)).toEqual([800, 1600, 3200, 48_000, 48_000, 48_000]);
    expect([1, 2, 7, 100].map(high)).toEqual([1200, 2400, 60_000, 60_000]);
  });
});

import { describe, expect, it } from 'vitest';
import type { InboundDecision } from '../../../src/channels/twilio/inbound.js';
import { createStoreRetry, NOT_TAKEN_NOTICE } from '../../../src/channels/twilio/store-retry.js';
import { createLogger } from '../../../src/log.js';

const log = createLogger({ level: 'silent' });
const failed: InboundDecision = { type: 'failed', error: 'disk full' };
const accepted: InboundDecision = { type: 'accepted', outcome: 'stored' };

function counting(results: InboundDecision[]) {
  let n = 0;
  const attempt = async () => results[Math.min(n++, results.length - 1)] as InboundDecision;
  return { attempt, tries: () => n };
}

describe('holding a refused webhook message', () => {
  it('tries again with backoff until the store takes it', async () => {
    const retry = createStoreRetry({ delaysMs: [1, 1, 1], maxHeld: 5, noticeAfterMs: 50 }, () => {}, log);
    const a = counting([failed, failed, accepted]);
    expect(await retry.run('+1', 'SM1', a.attempt)).toEqual(accepted);
    expect(a.tries()).toBe(3);
  });

  it('holds at most maxHeld messages at once; the next one is answered after one try', async () => {
    const retry = createStoreRetry({ delaysMs: [30, 30], maxHeld: 1, noticeAfterMs: 5000 }, () => {}, log);
    const first = counting([failed]);
    const second = counting([failed]);
    const held = retry.run('+1', 'SM1', first.attempt);
    await new Promise((r) => setTimeout(r, 5));
    expect(retry.held()).toBe(1);
    expect(await retry.run('+2', 'SM2', second.attempt)).toEqual(failed);
    expect(second.tries()).toBe(1);
    expect(await held).toEqual(failed);
    expect(first.tries()).toBe(3);
    expect(retry.held()).toBe(0);
    retry.stop();
  });

  it('tells a chat once for a burst of refused messages, not for one a later retry stored', async () => {
    const told: [string, string][] = [];
    const retry = createStoreRetry(
      { delaysMs: [], maxHeld: 5, noticeAfterMs: 30 },
      (c, t) => told.push([c, t]),
      log,
    );
    await retry.run('+1', 'SM1', counting([failed]).attempt);
    await retry.run('+1', 'SM2', counting([failed]).attempt);
    await retry.run('+2', 'SM3', counting([failed]).attempt);
    await retry.run('+2', 'SM3', counting([accepted]).attempt);
    await new Promise((r) => setTimeout(r, 80));
    expect(told).toEqual([['+1', NOT_TAKEN_NOTICE]]);
  });

  it('stops holding when the channel stops, and tells the sender at once', async () => {
    const told: string[] = [];
    const retry = createStoreRetry(
      { delaysMs: [60_000], maxHeld: 5, noticeAfterMs: 60_000 },
      (c) => told.push(c),
      log,
    );
    const a = counting([failed]);
    const held = retry.run('+1', 'SM1', a.attempt);
    await new Promise((r) => setTimeout(r, 5));
    retry.stop();
    expect(await held).toEqual(failed);
    expect(a.tries()).toBe(1);
    expect(told).toEqual(['+1']);
  });

  it('sends the waiting notices when the channel stops', async () => {
    const told: string[] = [];
    const retry = createStoreRetry(
      { delaysMs: [], maxHeld: 5, noticeAfterMs: 60_000 },
      (c) => told.push(c),
      log,
    );
    await retry.run('+1', 'SM1', counting([failed]).attempt);
    retry.stop();
    expect(told).toEqual(['+1']);
  });
});

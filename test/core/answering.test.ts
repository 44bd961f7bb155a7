import { afterEach, describe, expect, it } from 'vitest';
import { allAnswered, answering, lastAnsweredAt, unanswered } from '../../src/core/answering.js';

const open: (() => void)[] = [];
afterEach(() => {
  for (const done of open.splice(0)) done();
});
const take = () => {
  const done = answering();
  open.push(done);
  return done;
};

describe('webhooks in hand', () => {
  it('counts each request once, however often its end is reported', () => {
    const base = unanswered();
    const a = take();
    const b = take();
    expect(unanswered()).toBe(base + 2);
    a();
    a();
    expect(unanswered()).toBe(base + 1);
    b();
    expect(unanswered()).toBe(base);
  });

  it('resolves the waiters when the last one is answered, and notes when', async () => {
    const a = take();
    const b = take();
    let resolved = false;
    const wait = allAnswered(10_000).then(() => {
      resolved = true;
    });
    a();
    await new Promise((r) => setImmediate(r));
    expect(resolved).toBe(false);
    const before = performance.now();
    b();
    await wait;
    expect(resolved).toBe(true);
    expect(lastAnsweredAt()).toBeGreaterThanOrEqual(before);
  });

  it('never waits past its bound for a request that is never answered', async () => {
    take();
    const t0 = performance.now();
    await allAnswered(30);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(25);
    expect(unanswered()).toBeGreaterThan(0);
  });

  it('does not wait when nothing is in hand', async () => {
    let resolved = false;
    const wait = allAnswered(10_000).then(() => {
      resolved = true;
    });
    await Promise.resolve();
    await wait;
    expect(resolved).toBe(true);
  });
});

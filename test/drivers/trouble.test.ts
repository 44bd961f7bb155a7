import { describe, expect, it } from 'vitest';
import { Trouble } from '../../src/drivers/trouble.js';

class AgentError extends Error {}
const trouble = (closed = false) =>
  new Trouble(
    (e) => e instanceof AgentError,
    () => closed,
  );
const never = new Promise<never>(() => undefined);

describe('a pending request and the process fault', () => {
  it('keeps the first fault and wakes every waiter with it', async () => {
    const t = trouble();
    const waiting = t.once();
    expect(t.raise({ type: 'garbage', detail: 'x' })).toEqual({ type: 'garbage', detail: 'x' });
    expect(t.raise({ type: 'exited', exitCode: 1, signal: null })).toEqual({ type: 'garbage', detail: 'x' });
    expect(await waiting).toEqual({ type: 'garbage', detail: 'x' });
  });

  it('settles with the answer, the time limit, or a fault that comes first', async () => {
    const t = trouble();
    expect(await t.settle(Promise.resolve(7), 1000)).toEqual({ type: 'value', value: 7 });
    expect(await t.settle(never, 10)).toEqual({ type: 'timeout' });
    const pending = t.settle(never, 0);
    t.raise({ type: 'unresponsive', what: 'x' });
    expect(await pending).toEqual({ type: 'fault', fault: { type: 'unresponsive', what: 'x' } });
    expect(await t.settle(Promise.resolve(1), 0)).toMatchObject({ type: 'fault' });
  });

  it("gives the agent's own error back, but explains a dropped connection by the exit that follows", async () => {
    const t = trouble();
    const own = new AgentError('no such session');
    expect(await t.settle(Promise.reject(own), 0)).toEqual({ type: 'rejected', error: own });
    const dropped = t.settle(Promise.reject(new Error('connection closed')), 0);
    setTimeout(() => t.raise({ type: 'exited', exitCode: null, signal: 'SIGKILL' }), 20);
    expect(await dropped).toEqual({
      type: 'fault',
      fault: { type: 'exited', exitCode: null, signal: 'SIGKILL' },
    });
  });

  it('after its own close, a dropped connection is just a rejection', async () => {
    const t = trouble(true);
    const error = new Error('connection closed');
    expect(await t.settle(Promise.reject(error), 0)).toEqual({ type: 'rejected', error });
  });
});

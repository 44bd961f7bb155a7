// The queue's hooks into the warm pool: /new closes the scope's process, shutdown ends the pool,
// and every run names its lane (the session scope) so the pool can find the chat's process.
import { afterEach, describe, expect, it } from 'vitest';
import type { WarmPort } from '../../src/queue/ports.js';
import { FakeAgent, type Harness, harness, ok } from './helpers.js';

let h: Harness | undefined;
afterEach(() => h?.cleanup());

function spyPort() {
  const calls: string[] = [];
  const warm: WarmPort = {
    steer: async () => 'idle',
    close: async (lane) => void calls.push(`close ${lane}`),
    shutdown: async () => void calls.push('shutdown'),
  };
  return { calls, warm };
}

describe('queue → warm pool hooks', () => {
  it('/new closes the process of the chat scope; shutdown ends the pool', async () => {
    const { calls, warm } = spyPort();
    h = harness({ warm });
    await h.send('/new');
    expect(calls).toEqual([
      'close console:+15550001111'.replace('+15550001111', calls[0]?.split(':')[1] ?? ''),
    ]);
    expect(calls[0]).toMatch(/^close console:/);
    await h.queue.shutdown(0);
    expect(calls.at(-1)).toBe('shutdown');
  });

  it('with sessions.scope global, /new closes the one shared process', async () => {
    const { calls, warm } = spyPort();
    h = harness({ warm, config: { sessions: { scope: 'global' } } });
    await h.send('/new');
    expect(calls).toEqual(['close *']);
  });

  it('a run tells the agent layer its lane and whose session it is', async () => {
    const seen: unknown[] = [];
    const agent = new FakeAgent(() => ok('hi'));
    const base = agent.resolver();
    h = harness({
      agent,
      resolver: (kind) => {
        const r = base(kind);
        if (!r.ok) return r;
        const run = r.agent.run;
        const spied: typeof run = (req, ctx) => {
          seen.push(ctx);
          return run(req);
        };
        return { ok: true, agent: { ...r.agent, run: spied } };
      },
    });
    await h.send('hello');
    await h.channel.untilSent(1);
    expect(seen).toEqual([{ lane: expect.stringMatching(/^console:/), session: 'chat' }]);
  });
});

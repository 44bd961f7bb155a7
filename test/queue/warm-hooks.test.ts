// The queue's hooks into the warm pool: /new closes the scope's process, shutdown ends the pool,
// and every run names its session key (the session scope) so the pool can find the chat's process.
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

  it('a run tells the agent layer its session key and whose session it is', async () => {
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
    expect(seen).toEqual([{ sessionKey: expect.stringMatching(/^console:/), session: 'chat' }]);
  });

  it.each([
    ['per-chat', ['steer']],
    ['global', []],
  ])('whileBusy steer with sessions.scope %s asks the pool to steer: %j', async (scope, want) => {
    const asked: string[] = [];
    const warm: WarmPort = {
      steer: async () => {
        asked.push('steer');
        return 'unsupported';
      },
      close: async () => {},
      shutdown: async () => {},
    };
    const agent = new FakeAgent();
    h = harness({ agent, warm, config: { queue: { whileBusy: 'steer' }, sessions: { scope } } });
    await h.send('first');
    await agent.untilCalls(1);
    await h.send('second');
    await new Promise((r) => setTimeout(r, 20));
    // Not steered (unsupported, or a global session whose turn may be another chat's): it waits.
    expect(asked).toEqual(want);
    agent.calls[0]?.finish(ok('one'));
    await agent.untilCalls(2);
    expect(agent.prompts()[1]).toContain('second');
    agent.calls[1]?.finish(ok('two'));
    await h.queue.whenIdle();
  });

  it("/status shows the chat's warm process and the CLIs that fell back; nothing for a cold chat", async () => {
    let lane = '';
    const warm: WarmPort = {
      steer: async () => 'idle',
      close: async () => {},
      shutdown: async () => {},
      status: (now) => ({
        maxProcesses: 4,
        processes: [
          {
            sessionKey: lane,
            kind: 'codex',
            pid: 7,
            startedAt: now - 600_000,
            lastTurnAt: now - 45_000,
            busy: false,
            rssBytes: 143 * 1048576,
          },
        ],
        fallbacks: [{ kind: 'gemini', reason: 'exit: unknown flag --acp' }],
      }),
    };
    h = harness({ warm });
    await h.send('/status', { chatId: 'other' });
    lane = 'console:local';
    await h.send('/status');
    await h.channel.untilSent(2);
    const [none, live] = h.channel.texts();
    // Another chat has no process, but the fallback is still worth saying.
    expect(none).toContain('Warm process: none');
    expect(live).toContain('Warm process: codex, up 10 min, idle 45 s, 143 MB');
    expect(live).toContain('gemini runs cold: its warm start failed (exit: unknown flag --acp)');
  });

  it('/status of a cold chat with no warm process or fallback says nothing of warm', async () => {
    const warm: WarmPort = {
      steer: async () => 'idle',
      close: async () => {},
      shutdown: async () => {},
      status: () => ({ maxProcesses: 4, processes: [], fallbacks: [] }),
    };
    h = harness({ warm });
    await h.send('/status');
    await h.channel.untilSent(1);
    expect(h.channel.texts()[0]).not.toContain('Warm');
  });
});

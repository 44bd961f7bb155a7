import { afterEach, describe, expect, it } from 'vitest';
import { getSession, saveSession } from '../../src/store/sqlite/sessions.js';
import { FakeAgent, type Harness, harness, ok } from './helpers.js';

let h: Harness;
afterEach(() => h?.cleanup());

const opts = { allowNewSession: true, touchIdle: true, label: 'heartbeat' };

describe('SystemRunner', () => {
  it('runIfIdle is busy, never queued, while the chat runs or has waiting messages', async () => {
    const agent = new FakeAgent();
    h = harness({ agent });
    await h.send('user run');
    await agent.untilCalls(1);
    expect(await h.queue.runIfIdle('console:local', 'check in', opts)).toEqual({ type: 'busy' });
    await h.send('waiting');
    agent.pending[0]?.finish(ok('1'));
    await agent.untilCalls(2);
    agent.pending[0]?.finish(ok('2'));
    await h.queue.whenIdle();
    expect(agent.prompts()).toEqual(['user run', 'waiting']);
  });

  it('runIfIdle is busy when the global cap is reached by other chats', async () => {
    const agent = new FakeAgent();
    h = harness({ agent, config: { queue: { maxConcurrentRuns: 1 } } });
    await h.send('other chat', { chatId: 'other' });
    await agent.untilCalls(1);
    expect(await h.queue.runIfIdle('console:local', 'check in', opts)).toEqual({ type: 'busy' });
    agent.pending[0]?.finish(ok('x'));
  });

  it('returns no_session instead of starting one when not allowed', async () => {
    h = harness();
    expect(await h.queue.runIfIdle('console:local', 'p', { ...opts, allowNewSession: false })).toEqual({
      type: 'no_session',
    });
    expect(h.agent.calls).toHaveLength(0);
  });

  it('a heartbeat whose stored session is known to be gone runs nothing and forgets the session', async () => {
    const agent = new FakeAgent((req) => ok(req.prompt));
    h = harness({ agent, resolver: agent.resolver({ sessionGone: () => true }) });
    saveSession(h.store.db, 'console:local', 'claude', '/state/pi-sessions/gone.jsonl', h.clock.now);
    expect(await h.queue.runIfIdle('console:local', 'p', { ...opts, allowNewSession: false })).toEqual({
      type: 'no_session',
    });
    expect(agent.calls).toHaveLength(0);
    expect(getSession(h.store.db, 'console:local', 'claude')).toBeUndefined();
  });

  it('runs in the chat session, returns the result and sends nothing itself; touchIdle false keeps the idle clock', async () => {
    h = harness();
    saveSession(h.store.db, 'console:local', 'claude', 's1', h.clock.now - 5_000);
    h.clock.now += 1000;
    const out = await h.queue.runIfIdle('console:local', 'p', { ...opts, touchIdle: false });
    expect(out).toMatchObject({ type: 'ran', result: { type: 'ok', text: 'echo: p' } });
    expect(h.agent.calls[0]?.request.session).toEqual({ type: 'resume', id: 's1' });
    expect(getSession(h.store.db, 'console:local', 'claude')?.lastUsedAt).toBe(h.clock.now - 6_000);
    await h.queue.whenIdle();
    expect(h.channel.sent).toHaveLength(0);
  });

  it('a user message during a system run waits for it and then runs', async () => {
    const agent = new FakeAgent();
    h = harness({ agent });
    const sys = h.queue.runIfIdle('console:local', 'heartbeat', opts);
    await agent.untilCalls(1);
    expect((await h.send('user')).type).toBe('stored');
    agent.pending[0]?.finish(ok('HEARTBEAT_OK'));
    await sys;
    await agent.untilCalls(2);
    agent.pending[0]?.finish(ok('hi user'));
    await h.queue.whenIdle();
    expect(h.channel.texts()).toEqual(['hi user']);
  });

  it('deliver sends text and checked media once per key', async () => {
    h = harness();
    await h.queue.deliver('console:local', 'hb:1', 'Reminder', ['./a.png', '/etc/shadow']);
    await h.queue.deliver('console:local', 'hb:1', 'Reminder', ['./a.png', '/etc/shadow']);
    await h.queue.whenIdle();
    expect(h.channel.sent.map((s) => s.item.type)).toEqual(['text', 'file']);
    expect(h.channel.texts()[0]).toBe(
      'Reminder\n\n(Attachment not sent: /etc/shadow: outside the allowed folders.)',
    );
  });

  it("a read that fails after the run does not turn the run's outcome into a throw", async () => {
    // The busy check before the run reads as usual; the look after it (does a message wait?) fails.
    let reads = 0;
    h = harness({
      queueStore: (port) => ({
        ...port,
        countPending: async (chat) => {
          if (++reads > 1) throw new Error('the store is away a moment');
          return port.countPending(chat);
        },
      }),
    });
    const out = await h.queue.runIfIdle('console:local', 'p', opts);
    expect(out).toMatchObject({ type: 'ran', result: { type: 'ok', text: 'echo: p' } });
    expect(reads).toBe(2);
    expect(h.agent.calls).toHaveLength(1);
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { NOTICE } from '../../src/core/reply.js';
import { getInbound } from '../../src/store/sqlite/inbox.js';
import { getSession, saveSession } from '../../src/store/sqlite/sessions.js';
import { FakeAgent, fail, type Harness, harness, ok } from './helpers.js';

let h: Harness;
afterEach(() => h?.cleanup());

describe('sessions through the queue', () => {
  it('a new chat starts a session with a relay-chosen id and resumes it next time', async () => {
    h = harness();
    await h.send('one');
    await h.queue.whenIdle();
    const first = h.agent.calls[0]?.request.session;
    expect(first).toMatchObject({ type: 'new', id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(getSession(h.store.db, 'console:local', 'claude')?.sessionId).toBe(
      first?.type === 'new' && first.id,
    );
    await h.send('two');
    await h.queue.whenIdle();
    expect(h.agent.calls[1]?.request.session).toEqual({
      type: 'resume',
      id: first?.type === 'new' && first.id,
    });
  });

  it('stores the id the CLI reports when the CLI chooses it', async () => {
    h = harness({
      config: { agent: { kind: 'codex' } },
      agent: new FakeAgent(() => ok('hi', { sessionId: 'thread-7' })),
    });
    await h.send('one');
    await h.queue.whenIdle();
    expect(h.agent.calls[0]?.request.session).toEqual({ type: 'new' });
    expect(getSession(h.store.db, 'console:local', 'codex')?.sessionId).toBe('thread-7');
  });

  it('an idle session expires and the next message starts fresh', async () => {
    h = harness({ config: { sessions: { idleMinutes: 30 } } });
    saveSession(h.store.db, 'console:local', 'claude', 'stale-by-time', h.clock.now - 31 * 60_000);
    await h.send('hello again');
    await h.queue.whenIdle();
    expect(h.agent.calls[0]?.request.session.type).toBe('new');
  });

  it('global scope shares one session across chats', async () => {
    h = harness({ config: { sessions: { scope: 'global' } } });
    await h.send('from a', { chatId: 'a' });
    await h.queue.whenIdle();
    await h.send('from b', { chatId: 'b' });
    await h.queue.whenIdle();
    const [a, b] = h.agent.calls.map((c) => c.request.session);
    expect(b).toEqual({ type: 'resume', id: a?.type === 'new' ? a.id : 'x' });
  });

  it('per-chat scope keeps chats apart, and /new in one does not touch the other', async () => {
    h = harness();
    saveSession(h.store.db, 'console:a', 'claude', 'sa', h.clock.now);
    saveSession(h.store.db, 'console:b', 'claude', 'sb', h.clock.now);
    await h.send('/new', { chatId: 'a' });
    await h.send('x', { chatId: 'b' });
    await h.queue.whenIdle();
    expect(h.agent.calls[0]?.request.session).toEqual({ type: 'resume', id: 'sb' });
    expect(getSession(h.store.db, 'console:a', 'claude')).toBeUndefined();
  });

  it('a stale resume retries once in a fresh session and tells the user context was reset', async () => {
    const agent = new FakeAgent((req) =>
      req.session.type === 'resume'
        ? fail('session_not_found', 'No conversation found', { sessionId: 'bogus-new-id' })
        : ok('fresh answer'),
    );
    h = harness({ agent });
    saveSession(h.store.db, 'console:local', 'claude', 'gone', h.clock.now);
    await h.send('continue please');
    await h.channel.untilSent(1);
    expect(agent.calls.map((c) => c.request.session.type)).toEqual(['resume', 'new']);
    expect(h.channel.texts()).toEqual([`${NOTICE.contextReset}\n\nfresh answer`]);
    const kept = getSession(h.store.db, 'console:local', 'claude')?.sessionId;
    expect(kept).not.toBe('gone');
    expect(kept).not.toBe('bogus-new-id');
  });

  it('a stale resume is retried only once, never in a loop', async () => {
    const agent = new FakeAgent(() => fail('session_not_found', 'No conversation found'));
    h = harness({ agent });
    saveSession(h.store.db, 'console:local', 'claude', 'gone', h.clock.now);
    const r = await h.send('x');
    await h.queue.whenIdle();
    expect(agent.calls).toHaveLength(2);
    expect(h.channel.texts()).toEqual([`${NOTICE.contextReset}\n\nNo conversation found.`]);
    expect(getSession(h.store.db, 'console:local', 'claude')).toBeUndefined();
    expect(r.type === 'stored' && getInbound(h.store.db, r.inboxId)).toMatchObject({
      status: 'failed',
      note: 'session_not_found',
    });
  });

  it('a timed-out run keeps the session id it reported, so the chat can resume', async () => {
    const agent = new FakeAgent(() =>
      fail('timeout', 'claude timed out after 5 s.', { sessionId: 'partial' }),
    );
    h = harness({ config: { agent: { kind: 'codex' } }, agent });
    await h.send('x');
    await h.queue.whenIdle();
    expect(h.channel.texts()).toEqual(['claude timed out after 5 s.']);
    expect(getSession(h.store.db, 'console:local', 'codex')?.sessionId).toBe('partial');
  });

  it('a first run that failed before creating its session: the next resume finds it gone and says nothing of a reset', async () => {
    const known = new Set<string>();
    const agent = new FakeAgent((req, n) => {
      if (n === 1) return fail('auth', 'claude could not sign in.', { sessionId: req.session.id });
      if (req.session.type === 'resume' && !known.has(req.session.id))
        return fail('session_not_found', 'No conversation found');
      if (req.session.id) known.add(req.session.id);
      return ok(`answer to ${req.prompt}`, { sessionId: req.session.id });
    });
    h = harness({ agent });
    await h.send('first');
    await h.queue.whenIdle();
    const chosen = agent.calls[0]?.request.session.id as string;
    expect(getSession(h.store.db, 'console:local', 'claude')).toMatchObject({
      sessionId: chosen,
      confirmed: false,
    });
    await h.send('second');
    await h.queue.whenIdle();
    expect(agent.calls.map((c) => c.request.session)).toEqual([
      { type: 'new', id: chosen },
      { type: 'resume', id: chosen },
      { type: 'new', id: expect.not.stringMatching(chosen) },
    ]);
    expect(h.channel.texts()).toEqual(['claude could not sign in.', 'answer to second']);
    const fresh = agent.calls[2]?.request.session.id;
    expect(getSession(h.store.db, 'console:local', 'claude')).toMatchObject({
      sessionId: fresh,
      confirmed: true,
    });
    // Now confirmed: losing it later is a real reset, and the chat is told.
    known.clear();
    await h.send('third');
    await h.queue.whenIdle();
    expect(h.channel.texts()[2]).toBe(`${NOTICE.contextReset}\n\nanswer to third`);
  });

  it('an unconfirmed session that does exist is resumed, and then counts as confirmed', async () => {
    const agent = new FakeAgent((req, n) =>
      n === 1 ? fail('timeout', 'claude timed out after 5 s.', { sessionId: req.session.id }) : ok('went on'),
    );
    h = harness({ agent });
    await h.send('long job');
    await h.queue.whenIdle();
    await h.send('go on');
    await h.queue.whenIdle();
    const chosen = agent.calls[0]?.request.session.id as string;
    expect(agent.calls[1]?.request.session).toEqual({ type: 'resume', id: chosen });
    expect(getSession(h.store.db, 'console:local', 'claude')).toMatchObject({
      sessionId: chosen,
      confirmed: true,
    });
  });

  it("a session the relay sees is gone (pi's file) starts fresh without a failed run, and says so", async () => {
    const agent = new FakeAgent((req) => ok(`answer to ${req.prompt}`, { sessionId: req.session.id }));
    h = harness({
      agent,
      resolver: agent.resolver({ sessionGone: (id) => id === '/state/pi-sessions/gone.jsonl' }),
    });
    saveSession(h.store.db, 'console:local', 'claude', '/state/pi-sessions/gone.jsonl', h.clock.now);
    await h.send('where were we');
    await h.queue.whenIdle();
    expect(agent.calls.map((c) => c.request.session.type)).toEqual(['new']);
    expect(h.channel.texts()).toEqual([`${NOTICE.contextReset}\n\nanswer to where were we`]);
    expect(getSession(h.store.db, 'console:local', 'claude')?.sessionId).not.toBe(
      '/state/pi-sessions/gone.jsonl',
    );
  });

  it('an unconfirmed session the relay sees is gone starts fresh with no notice', async () => {
    const agent = new FakeAgent((req) => ok(`answer to ${req.prompt}`));
    h = harness({ agent, resolver: agent.resolver({ sessionGone: () => true }) });
    saveSession(
      h.store.db,
      'console:local',
      'claude',
      '/state/pi-sessions/never.jsonl',
      h.clock.now,
      true,
      false,
    );
    await h.send('hello');
    await h.queue.whenIdle();
    expect(agent.calls.map((c) => c.request.session.type)).toEqual(['new']);
    expect(h.channel.texts()).toEqual(['answer to hello']);
  });
});

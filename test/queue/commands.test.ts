import { afterEach, describe, expect, it } from 'vitest';
import { duration } from '../../src/core/command-handler.js';
import { getChatSettings, getSession, saveSession } from '../../src/store/sqlite/sessions.js';
import { FakeAgent, fail, type Harness, harness, ok } from './helpers.js';

let h: Harness;
afterEach(() => h?.cleanup());

describe('chat commands', () => {
  it('are answered through the outbox and never reach the agent; a redelivered command does nothing', async () => {
    h = harness();
    expect(await h.send('/help', { messageId: 'c1' })).toEqual({ type: 'command' });
    expect(await h.send('/help', { messageId: 'c1' })).toEqual({ type: 'duplicate' });
    await h.queue.whenIdle();
    expect(h.agent.calls).toHaveLength(0);
    expect(h.channel.texts()).toHaveLength(1);
    expect(h.channel.texts()[0]).toContain('/new [text]');
  });

  it('/new forgets the session; its trailing text is the first prompt of the fresh one', async () => {
    h = harness();
    saveSession(h.store.db, 'console:local', 'claude', 'old-session', h.clock.now);
    expect(await h.send('/new Write a haiku')).toEqual({ type: 'command' });
    await h.channel.untilSent(2);
    expect(h.channel.texts()).toEqual(['Started a fresh session.', 'echo: Write a haiku']);
    const req = h.agent.calls[0]?.request;
    expect(req?.session.type).toBe('new');
    expect(getSession(h.store.db, 'console:local', 'claude')?.sessionId).not.toBe('old-session');
  });

  it('/reset alone starts fresh without running the agent', async () => {
    h = harness();
    saveSession(h.store.db, 'console:local', 'claude', 'old', h.clock.now);
    await h.send('/RESET');
    await h.queue.whenIdle();
    expect(h.agent.calls).toHaveLength(0);
    expect(getSession(h.store.db, 'console:local', 'claude')).toBeUndefined();
    expect(h.channel.texts()).toEqual(['Started a fresh session. What next?']);
  });

  it('/new during a run: the run finishing later does not bring the old session back', async () => {
    const agent = new FakeAgent();
    h = harness({ agent });
    saveSession(h.store.db, 'console:local', 'claude', 'old', h.clock.now);
    await h.send('working');
    await agent.untilCalls(1);
    await h.send('/new');
    agent.pending[0]?.finish(ok('done', { sessionId: 'old' }));
    await h.queue.whenIdle();
    expect(getSession(h.store.db, 'console:local', 'claude')).toBeUndefined();
  });

  it('/stop stops the running agent now, drops what waits behind it, and says so', async () => {
    const agent = new FakeAgent();
    h = harness({ agent });
    await h.send('slow');
    await agent.untilCalls(1);
    await h.send('queued 1');
    await h.send('queued 2');
    expect(await h.send('/stop')).toEqual({ type: 'command' });
    expect(agent.calls[0]?.request.signal?.aborted).toBe(true);
    await h.queue.whenIdle();
    expect(agent.calls).toHaveLength(1);
    expect(h.channel.texts()).toEqual(['Stopped the agent. Dropped 2 waiting messages.']);
    const notes = h.store.db.prepare(`SELECT note FROM inbox WHERE kind = 'message' ORDER BY id`).all() as {
      note: string;
    }[];
    expect(notes.map((n) => n.note)).toEqual(['stopped', 'stopped', 'stopped']);
  });

  it('/stop with nothing running says so', async () => {
    h = harness();
    await h.send('/stop');
    await h.queue.whenIdle();
    expect(h.channel.texts()).toEqual(['Nothing is running.']);
  });

  it('/status reports agent, session age, queue depth and the current run', async () => {
    const agent = new FakeAgent();
    h = harness({ agent });
    saveSession(h.store.db, 'console:local', 'claude', 's1', h.clock.now - 10 * 60_000);
    await h.send('busy');
    await agent.untilCalls(1);
    await h.send('waiting');
    h.clock.now += 45_000;
    await h.send('/status');
    await h.channel.untilSent(1);
    expect(h.channel.texts()[0]).toBe(
      'Agent: claude\nSession: 11 min old, last used 11 min ago\nWaiting messages: 1\nRun: message, active for 45 s',
    );
    agent.pending[0]?.finish(ok('x'));
  });

  it('/agent switches only to a configured, available agent', async () => {
    h = harness({ config: { agents: { codex: {} } } });
    await h.send('/agent');
    await h.send('/agent gemini');
    await h.send('/agent nonsense');
    await h.send('/agent codex');
    await h.send('hi');
    await h.channel.untilSent(5);
    expect(h.channel.texts()).toEqual([
      'This chat uses claude. Configured agents: claude, codex.',
      'gemini is not configured here (add agents.gemini to the config). Configured agents: claude, codex.',
      'Unknown agent "nonsense". Configured agents: claude, codex.',
      'This chat now uses codex.',
      'echo: hi',
    ]);
    expect(h.agent.calls[0]?.kind).toBe('codex');
    expect(getChatSettings(h.store.db, 'console:local').agent).toBe('codex');
  });

  it('/agent refuses a configured agent that cannot run here', async () => {
    const agent = new FakeAgent();
    h = harness({ agent, config: { agents: { pi: {} } }, resolver: agent.resolver({ unavailable: ['pi'] }) });
    await h.send('/agent pi');
    await h.channel.untilSent(1);
    expect(h.channel.texts()).toEqual(['Cannot switch to pi: pi is not installed.']);
  });

  it('/think sets a level the agent knows and passes it to the run', async () => {
    h = harness();
    await h.send('/think');
    await h.send('/think extreme');
    await h.send('/think HIGH');
    await h.send('go');
    await h.channel.untilSent(4);
    expect(h.channel.texts().slice(0, 3)).toEqual([
      'Thinking: default. Levels for claude: low, high (or off).',
      'Unknown level "extreme". Levels for claude: low, high.',
      'Thinking level set to high.',
    ]);
    expect(h.agent.calls[0]?.request.thinking).toBe('high');
    await h.send('/think off');
    await h.channel.untilSent(5);
    expect(getChatSettings(h.store.db, 'console:local').thinking).toBeUndefined();
  });

  it('/verbose on sends what the agent says while it works, before its answer; off stops it', async () => {
    const agent = new FakeAgent((req) => {
      req.onProgress?.('Looking at the deploy log…');
      req.onProgress?.('Found it: a missing env var.');
      return ok(`answer to ${req.prompt}`);
    });
    h = harness({ agent });
    await h.send('/verbose');
    await h.send('/verbose maybe');
    await h.send('/verbose on');
    await h.send('/status');
    await h.send('why did it fail?');
    await h.channel.untilSent(7);
    const texts = h.channel.texts();
    expect(texts.slice(0, 3)).toEqual([
      'Verbose is off: only the answer is sent. /verbose on to also get what the agent says while it works.',
      'Unknown setting "maybe": use on or off.',
      'Verbose on: what the agent says while it works is sent as it comes.',
    ]);
    expect(texts[3]).toMatch(/^Agent: claude, verbose\n/);
    expect(texts.slice(4)).toEqual([
      'Looking at the deploy log…',
      'Found it: a missing env var.',
      'answer to why did it fail?',
    ]);
    await h.send('/verbose OFF');
    await h.send('and now?');
    await h.channel.untilSent(9);
    await h.queue.whenIdle();
    expect(h.channel.texts().slice(7)).toEqual([
      'Verbose off: only the answer is sent.',
      'answer to and now?',
    ]);
  });

  it('/verbose: an agent that dies after saying something still gets its one true error sentence', async () => {
    const agent = new FakeAgent((req) => {
      req.onProgress?.('Running the migration now.');
      return fail('exit', 'The agent (claude) exited with code 3.', { exitCode: 3 });
    });
    h = harness({ agent });
    await h.send('/verbose on');
    await h.send('migrate');
    await h.channel.untilSent(3);
    await h.queue.whenIdle();
    const texts = h.channel.texts();
    expect(texts).toHaveLength(3);
    expect(texts[1]).toBe('Running the migration now.');
    expect(texts[2]).toContain('exited with code 3');
  });

  it('/verbose: a stopped run sends nothing it says after the stop', async () => {
    const agent = new FakeAgent();
    h = harness({ agent });
    await h.send('/verbose on');
    await h.send('long job');
    await agent.untilCalls(1);
    const say = agent.calls[0]?.request.onProgress;
    say?.('step one');
    await h.send('/stop');
    await h.queue.whenIdle();
    say?.('step two, after the stop');
    await h.queue.whenIdle();
    expect(h.channel.texts()).toContain('step one');
    expect(h.channel.texts()).not.toContain('step two, after the stop');
  });

  it('/verbose sends at most ten progress messages a run, then only the answer', async () => {
    const agent = new FakeAgent((req) => {
      for (let i = 1; i <= 25; i++) req.onProgress?.(`step ${i}`);
      return ok('done');
    });
    h = harness({ agent });
    await h.send('/verbose on');
    await h.send('go');
    await h.channel.untilSent(12);
    await h.queue.whenIdle();
    const texts = h.channel.texts();
    expect(texts).toHaveLength(12);
    expect(texts.slice(1, 11)).toEqual(Array.from({ length: 10 }, (_, i) => `step ${i + 1}`));
    expect(texts[11]).toBe('done');
  });

  it('honours a configured prefix and aliases', async () => {
    h = harness({ config: { commands: { prefix: '!', aliases: { neu: 'new' } } } });
    expect((await h.send('!NEU hallo')).type).toBe('command');
    expect((await h.send('/new hi')).type).toBe('stored');
    await h.channel.untilSent(3);
    expect(h.agent.prompts()).toEqual(['hallo', '/new hi']);
  });
});

describe('duration', () => {
  it.each([
    [0, '0 s'],
    [44_400, '44 s'],
    [60_000, '1 min'],
    [119 * 60_000, '119 min'],
    [3 * 3600_000, '3 h'],
    [72 * 3600_000, '3 days'],
  ])('%d ms → %s', (ms, out) => {
    expect(duration(ms)).toBe(out);
  });
});

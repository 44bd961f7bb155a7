// Check-ins that do not burn tokens, through the real queue and store: a job's
// own session or a fresh one, another agent and model, and usage recorded per run and per day.
import { afterEach, describe, expect, it } from 'vitest';
import { getSpec } from '../../src/agents/registry.js';
import { configSchema } from '../../src/config/schema.js';
import { liveStatus } from '../../src/ops/status/live.js';
import { renderStatus } from '../../src/ops/status/render.js';
import { dailyUsage, recentRuns } from '../../src/store/sqlite/runs.js';
import { getSession, saveSession } from '../../src/store/sqlite/sessions.js';
import { statusReader } from '../../src/store/sqlite/status-read.js';
import { FakeAgent, type Harness, harness, ok } from './helpers.js';

let h: Harness;
afterEach(() => h?.cleanup());

const CHAT = 'console:local';
const heartbeat = { allowNewSession: false, touchIdle: false, label: 'heartbeat' };

describe('session, agent and model of a system run', () => {
  it("'own': starts and then resumes a session of its own, and leaves the chat's alone", async () => {
    const agent = new FakeAgent(() => ok('HEARTBEAT_OK'));
    h = harness({ agent });
    saveSession(h.store.db, CHAT, 'claude', 'chat-session', h.clock.now);
    const own = { ...heartbeat, session: { type: 'own', key: `heartbeat:${CHAT}` } as const };
    expect(await h.queue.runIfIdle(CHAT, 'check 1', own)).toMatchObject({ type: 'ran' });
    expect(await h.queue.runIfIdle(CHAT, 'check 2', own)).toMatchObject({ type: 'ran' });
    const [first, second] = agent.calls.map((c) => c.request.session);
    expect(first?.type).toBe('new');
    expect(second).toEqual({ type: 'resume', id: first?.id });
    expect(getSession(h.store.db, `own:heartbeat:${CHAT}`, 'claude')?.sessionId).toBe(first?.id);
    expect(getSession(h.store.db, CHAT, 'claude')?.sessionId).toBe('chat-session');
  });

  it("'fresh': a new session every run, none kept", async () => {
    const agent = new FakeAgent(() => ok('HEARTBEAT_OK'));
    h = harness({ agent });
    const fresh = { ...heartbeat, session: { type: 'fresh' } as const };
    await h.queue.runIfIdle(CHAT, 'a', fresh);
    await h.queue.runIfIdle(CHAT, 'b', fresh);
    const sessions = agent.calls.map((c) => c.request.session);
    expect(sessions.map((s) => s.type)).toEqual(['new', 'new']);
    expect(sessions[0]?.id).not.toBe(sessions[1]?.id);
    expect(getSession(h.store.db, CHAT, 'claude')).toBeUndefined();
  });

  it("'chat' (the default) still never starts a session for a heartbeat", async () => {
    h = harness();
    expect(await h.queue.runIfIdle(CHAT, 'p', heartbeat)).toEqual({ type: 'no_session' });
  });

  it('another agent and model reach the CLI request (the spec turns model into its flag)', async () => {
    const agent = new FakeAgent(() => ok('HEARTBEAT_OK'));
    h = harness({ agent });
    await h.queue.runIfIdle(CHAT, 'p', {
      ...heartbeat,
      session: { type: 'fresh' },
      agent: 'codex',
      model: 'gpt-5-mini',
    });
    expect(agent.calls.map((c) => [c.kind, c.request.model])).toEqual([['codex', 'gpt-5-mini']]);
    // The real codex spec turns it into its own flag.
    const argv = getSpec('codex').build(agent.calls[0]!.request).argv;
    expect(argv.slice(argv.indexOf('--model'), argv.indexOf('--model') + 2)).toEqual([
      '--model',
      'gpt-5-mini',
    ]);
  });
});

describe('usage per run and per day', () => {
  it('is stored with each run, summed per day and label, and shown in status', async () => {
    let n = 0;
    const agent = new FakeAgent((req) =>
      req.prompt.startsWith('hb')
        ? ok('HEARTBEAT_OK', { usage: { inputTokens: 1000, outputTokens: 10, costUsd: 0.002 } })
        : ok(`reply ${++n}`, { usage: { inputTokens: 50, outputTokens: 20 } }),
    );
    h = harness({ agent });
    h.clock.now = Date.parse('2026-11-25T23:30:00Z');
    const fresh = { ...heartbeat, session: { type: 'fresh' } as const };
    await h.queue.runIfIdle(CHAT, 'hb 1', fresh);
    await h.queue.runIfIdle(CHAT, 'hb 2', fresh);
    await h.send('hello');
    await h.queue.whenIdle();
    h.clock.now = Date.parse('2026-11-26T00:30:00Z');
    await h.queue.runIfIdle(CHAT, 'hb 3', fresh);

    expect(recentRuns(h.store.db, 1)[0]).toMatchObject({
      label: 'heartbeat',
      usage: { inputTokens: 1000, outputTokens: 10, costUsd: 0.002 },
    });
    const days = dailyUsage(h.store.db);
    expect(days.map((d) => [d.day, d.label, d.runs, d.inputTokens, d.outputTokens, d.runsWithCost])).toEqual([
      ['2026-11-26', 'heartbeat', 1, 1000, 10, 1],
      ['2026-11-25', 'heartbeat', 2, 2000, 20, 2],
      ['2026-11-25', 'user', 1, 50, 20, 0],
    ]);
    expect(days[1]?.costUsd).toBeCloseTo(0.004, 10);

    const snap = await liveStatus({
      store: statusReader(h.store.db),
      config: configSchema.parse({ heartbeat: { everyMinutes: 0 } }),
      channels: () => [],
      queue: () => h.queue.status(),
      startedAt: h.clock.now,
      now: () => h.clock.now,
    })();
    expect(snap.usage.days[1]).toMatchObject({
      day: '2026-11-25',
      runs: 3,
      runsWithUsage: 3,
      inputTokens: 2050,
      outputTokens: 40,
      runsWithCost: 2,
    });
    expect(snap.recentRuns[0]).toMatchObject({ inputTokens: 1000, outputTokens: 10, costUsd: 0.002 });
    const text = renderStatus(snap, h.clock.now);
    expect(text).toContain('2026-11-25  3 runs, 2,050 in / 40 out tokens, $0.0040');
    expect(text).toMatch(/heartbeat\s+2 runs, 2,000 in \/ 20 out tokens, \$0\.0040/);
  });
});

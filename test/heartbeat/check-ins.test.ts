// Check-ins that do not burn tokens, at the scheduler: the heartbeat's
// pre-check (real child processes), and the agent, model and session a heartbeat or schedule asks
// the runner for. The runner's side (own/fresh sessions, usage) is in test/queue/check-in-runs.test.ts.
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AGENT_KINDS } from '../../src/agents/registry.js';
import { renderOutcome } from '../../src/cli/heartbeat.js';
import { renderListing } from '../../src/cli/schedules.js';
import { parseConfigText } from '../../src/config/load.js';
import { configSchema } from '../../src/config/schema.js';
import type { ChatKey } from '../../src/core/types.js';
import { buildListing } from '../../src/heartbeat/listing.js';
import { checkEnv, createRunCheck } from '../../src/heartbeat/run-check.js';
import { createScheduler, type Scheduler } from '../../src/heartbeat/scheduler.js';
import type { ScheduleConfig } from '../../src/heartbeat/settings.js';
import type { Db } from '../../src/store/sqlite/db.js';
import { captureLog, FakeClock, FakeRunner, jobDeps, ok, openStateDb, tempDir } from './helpers.js';

const OWNER: ChatKey = 'whatsapp:+15551234567';
const MIN = 60_000;
const T0 = Date.parse('2026-07-01T10:00:00Z');

let tmp: ReturnType<typeof tempDir>;
let db: Db;
let clock: FakeClock;
let runner: FakeRunner;
let scheduler: Scheduler | undefined;

beforeEach(() => {
  tmp = tempDir();
  db = openStateDb(join(tmp.dir, 'agentwire.db'));
  clock = new FakeClock(T0);
  runner = new FakeRunner(clock);
  runner.sessions.add(OWNER);
});
afterEach(async () => {
  scheduler?.stop();
  await scheduler?.whenIdle();
  scheduler = undefined;
  db.close();
  tmp.cleanup();
});

function start(heartbeat: Record<string, unknown>, schedules: ScheduleConfig[] = []): Scheduler {
  scheduler = createScheduler({
    runner,
    clock,
    ...jobDeps(db),
    log: captureLog().log,
    runCheck: createRunCheck({ env: checkEnv(process.env), cwd: tmp.dir, killGraceMs: 100 }),
    config: { heartbeat, schedules },
    defaultTarget: () => undefined,
  });
  scheduler.start();
  return scheduler;
}

function script(name: string, body: string): string[] {
  const path = join(tmp.dir, `${name}.sh`);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return [path];
}

describe('heartbeat pre-check', () => {
  it('a quiet check (no output) does not wake the agent', async () => {
    const s = start({ target: OWNER, check: script('quiet', 'exit 0') });
    await clock.advance(30 * MIN);
    await s.whenIdle();
    expect(runner.runs).toHaveLength(0);
    expect(s.status().heartbeat).toMatchObject({ lastOutcome: 'check_quiet' });
  });

  it('a check that exits non-zero does not wake the agent', async () => {
    const s = start({ target: OWNER, check: script('fail', 'echo "something"; exit 3') });
    await clock.advance(30 * MIN);
    await s.whenIdle();
    expect(runner.runs).toHaveLength(0);
  });

  it('a check that prints wakes the agent with its output after the prompt', async () => {
    const s = start({
      target: OWNER,
      prompt: 'Anything urgent?',
      check: script('news', 'echo "CI red on main"'),
    });
    await clock.advance(30 * MIN);
    await s.whenIdle();
    expect(runner.runs.map((r) => r.prompt)).toEqual([
      "Anything urgent?\n\nOutput of this heartbeat's check command:\n```\nCI red on main\n```",
    ]);
  });

  it('a check that cannot run is a failure, reported once', async () => {
    const s = start({ target: OWNER, check: [join(tmp.dir, 'missing-check')] });
    await clock.advance(60 * MIN);
    await s.whenIdle();
    expect(runner.runs).toHaveLength(0);
    expect(runner.delivered.map((d) => d.text)).toEqual([
      expect.stringMatching(/^The heartbeat check-in failed: its check command could not run/),
    ]);
    expect(s.status().heartbeat).toMatchObject({ lastOutcome: 'failed' });
  });

  it('`agentwire heartbeat` says the check found nothing, and exits 0', async () => {
    const s = start({ target: OWNER, everyMinutes: 0, check: script('quiet', 'exit 1') });
    const r = await s.fireHeartbeat({});
    expect(r).toEqual({ type: 'check_quiet', chat: OWNER });
    expect(renderOutcome(r, false)).toEqual({
      text: 'The check command found nothing to do for whatsapp:…4567: the agent was not woken, nothing was sent.',
      code: 0,
    });
  });
});

describe('agent, model and session per heartbeat and schedule', () => {
  it('the heartbeat asks for its own session, agent and model', async () => {
    runner.replies = [ok('HEARTBEAT_OK')];
    const s = start({ target: OWNER, session: 'own', agent: 'codex', model: 'gpt-5-mini' });
    await clock.advance(30 * MIN);
    await s.whenIdle();
    expect(runner.runs[0]?.opts).toEqual({
      allowNewSession: false,
      touchIdle: false,
      label: 'heartbeat',
      session: { type: 'own', key: `heartbeat:${OWNER}` },
      agent: 'codex',
      model: 'gpt-5-mini',
    });
  });

  it("by default the heartbeat runs in the chat's session, as before", async () => {
    const s = start({ target: OWNER });
    await clock.advance(30 * MIN);
    await s.whenIdle();
    expect(runner.runs[0]?.opts).toEqual({ allowNewSession: false, touchIdle: false, label: 'heartbeat' });
  });

  it('a schedule passes its session, agent and model', async () => {
    runner.replies = [ok('done')];
    const s = start({ everyMinutes: 0 }, [
      {
        id: 'digest',
        every: '15m',
        target: OWNER,
        prompt: 'Digest.',
        checkTimeoutSeconds: 60,
        session: 'fresh',
        agent: 'pi',
        model: 'haiku',
      },
    ]);
    await clock.advance(15 * MIN);
    await s.whenIdle();
    expect(runner.runs[0]?.opts).toEqual({
      allowNewSession: true,
      touchIdle: true,
      label: 'schedule:digest',
      // Names the run for its tools: the occurrence, the same if a restart redoes it.
      runKey: `schedule:digest:${T0 + 15 * MIN}`,
      session: { type: 'fresh' },
      agent: 'pi',
      model: 'haiku',
    });
  });
});

describe('config', () => {
  it('takes check, agent, model and session on heartbeat and schedules', () => {
    const c = configSchema.parse({
      heartbeat: {
        check: ['/bin/true'],
        checkTimeoutSeconds: 5,
        agent: 'codex',
        model: 'gpt-5-mini',
        session: 'own',
      },
      schedules: [
        {
          id: 'a',
          every: '1h',
          target: OWNER,
          prompt: 'p',
          agent: 'gemini',
          model: 'gemini-2.5-flash',
          session: 'fresh',
        },
      ],
    });
    expect(c.heartbeat).toMatchObject({ agent: 'codex', session: 'own', checkTimeoutSeconds: 5 });
    expect(c.schedules[0]).toMatchObject({ agent: 'gemini', session: 'fresh' });
  });

  it.each([
    [{ heartbeat: { model: '--dangerously-skip-permissions' } }, 'heartbeat.model'],
    [{ heartbeat: { session: 'shared' } }, 'heartbeat.session'],
    [{ heartbeat: { agent: 'gpt' } }, 'heartbeat.agent'],
  ])('refuses %j', (raw, key) => {
    // As the relay loads it: an agent kind is checked against the registry's list on load.
    const r = parseConfigText(JSON.stringify(raw), 'c.json5', {}, AGENT_KINDS);
    expect(r.ok).toBe(false);
    expect(r.ok ? [] : r.problems.map((p) => p.path)).toContain(key);
  });
});

describe('`agentwire schedules` says how each job runs', () => {
  it('names the session, agent, model and pre-check when they differ from the chat', () => {
    const l = buildListing(
      {
        heartbeat: { target: OWNER, session: 'own', model: 'claude-haiku-4-5', check: ['/bin/true'] },
        schedules: [{ id: 'plan', cron: '0 8 * * *', target: OWNER, prompt: 'p', checkTimeoutSeconds: 60 }],
      },
      () => undefined,
      T0,
    );
    expect(l.heartbeat).toMatchObject({ runsWith: 'its own session, model claude-haiku-4-5, a pre-check' });
    expect(l.schedules[0]).not.toHaveProperty('runsWith');
    expect(renderListing(l, T0)).toContain(
      '    runs with its own session, model claude-haiku-4-5, a pre-check\n',
    );
  });
});

describe('heartbeat pre-check news while the chat is busy', () => {
  it('is handed to the next run that happens, not lost', async () => {
    // Prints each line of news once, like a check that remembers what it reported.
    const news = join(tmp.dir, 'news.txt');
    writeFileSync(news, 'mail from Ann\n');
    const check = script('once', `cat "${news}"; : > "${news}"`);
    const s = start({ target: OWNER, prompt: 'Tell me.', check });
    runner.busy.add(OWNER);
    await clock.advance(30 * MIN);
    await s.whenIdle();
    expect(runner.runs).toHaveLength(0);
    runner.busy.delete(OWNER);
    writeFileSync(news, 'CI red\n');
    await clock.advance(30 * MIN);
    await s.whenIdle();
    expect(runner.runs.map((r) => r.prompt)).toEqual([
      "Tell me.\n\nOutput of this heartbeat's check command:\n```\nmail from Ann\nCI red\n```",
    ]);
    // Consumed: the next tick with a quiet check does not repeat it.
    await clock.advance(30 * MIN);
    await s.whenIdle();
    expect(runner.runs).toHaveLength(1);
  });
});

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentResult } from '../../../src/agents/types.js';
import { configSchema } from '../../../src/config/schema.js';
import { liveStatus, mergeLanes } from '../../../src/ops/status/live.js';
import { renderStatus } from '../../../src/ops/status/render.js';
import { buildSnapshot } from '../../../src/ops/status/snapshot.js';
import { readStore } from '../../../src/ops/status/store-reader.js';
import { openDb } from '../../../src/store/sqlite/db.js';
import { interactionStore } from '../../../src/store/sqlite/interactions.js';
import { QUEUE_MIGRATIONS } from '../../../src/store/sqlite/queue-schema.js';
import { recentRuns, recordRun, runRecord, runsMigration } from '../../../src/store/sqlite/runs.js';
import { readStatusFacts, statusReader } from '../../../src/store/sqlite/status-read.js';
import { ALICE, BOB, seededStore, stateFolder, T } from './seed.js';

describe('readStore on a real SQLite store', () => {
  it('reads waiting messages, sessions, runs and failures (one per failed batch) without message text', () => {
    const db = seededStore(stateFolder());
    const r = readStore(readStatusFacts(db));
    expect(r.lanes).toEqual([{ chat: `whatsapp:${ALICE}`, pending: 2 }]);
    expect(r.sessions).toEqual([
      { chat: '*', agent: 'codex', lastUsedAt: T + 6 },
      { chat: `whatsapp:${ALICE}`, agent: 'claude', lastUsedAt: T + 5 },
    ]);
    expect(r.runs.map((x) => [x.label, x.outcome])).toEqual([
      ['heartbeat', 'auth'],
      ['user', 'timeout'],
      ['user', 'ok'],
    ]);
    expect(r.failures.map((f) => [f.kind, f.chat])).toEqual([
      ['heartbeat:auth', `whatsapp:${ALICE}`],
      ['timeout', `whatsapp:${BOB}`],
      ['delivery', `whatsapp:${BOB}`],
    ]);
    expect(r.failures[1]?.message).toBe('the agent ran past its time limit and was stopped (2 messages)');
    expect(JSON.stringify(r)).not.toMatch(/secret plans|more plans|reply body/);
    db.close();
  });

  it('reads an empty or foreign store as empty', () => {
    const db = openDb(join(stateFolder(), 'x.db'), []);
    expect(readStore(readStatusFacts(db))).toEqual({
      lanes: [],
      sessions: [],
      runs: [],
      failures: [],
      usage: [],
    });
    db.close();
  });
});

describe('runs history', () => {
  it('records a run from its AgentResult, scrubbing the error, and stays bounded', () => {
    const db = openDb(join(stateFolder(), 'r.db'), [runsMigration]);
    const err: AgentResult = {
      type: 'error',
      kind: 'exit',
      message: 'exit 1 for +15551234567',
      durationMs: 50,
    };
    const rec = runRecord('twilio:+15551234567', 'codex', 'daily', err, T + 50, 'UTC');
    expect(rec).toEqual({
      day: new Date(T + 50).toISOString().slice(0, 10),
      chat: 'twilio:+15551234567',
      agent: 'codex',
      label: 'daily',
      startedAt: T,
      durationMs: 50,
      outcome: 'exit',
      error: 'exit 1 for …4567',
    });
    for (let i = 0; i < 520; i++) expect(recordRun(db, { ...rec, startedAt: T + i })).toEqual({ ok: true });
    expect((db.prepare('SELECT count(*) AS n FROM runs').get() as { n: number }).n).toBe(500);
    expect(recentRuns(db, 1)[0]?.startedAt).toBe(T + 519);
    db.close();
  });

  it('returns an error instead of throwing when the table is missing', () => {
    const db = openDb(join(stateFolder(), 'none.db'), []);
    const r = recordRun(db, {
      chat: 'c',
      agent: 'claude',
      label: 'user',
      startedAt: T,
      durationMs: 1,
      outcome: 'ok',
    });
    expect(r).toMatchObject({ ok: false, error: expect.stringContaining('no such table: runs') });
    db.close();
  });
});

describe('liveStatus', () => {
  it('joins the queue, the channels, the scheduler and the store into one masked snapshot', async () => {
    const db = seededStore(stateFolder());
    const status = liveStatus({
      store: statusReader(db),
      config: configSchema.parse({}),
      channels: () => [
        { name: 'whatsapp', state: { type: 'connected', since: T, account: ALICE } },
        { name: 'twilio', state: { type: 'disabled' } },
      ],
      queue: async () => ({
        policy: 'collect',
        maxConcurrentRuns: 2,
        active: [{ chat: `whatsapp:${BOB}`, kind: 'system', label: 'heartbeat', startedAt: T, messages: 0 }],
        waiting: { [`whatsapp:${ALICE}`]: 2 },
        unsentReplies: 0,
      }),
      scheduler: () => ({
        heartbeat: { enabled: true, everyMinutes: 30, target: `whatsapp:${ALICE}`, nextAt: T + 1000 },
        schedules: [{ id: 'daily', timing: 'cron 0 9 * * *', target: `whatsapp:${BOB}`, nextAt: T + 2000 }],
      }),
      startedAt: T - 1000,
      pid: 321,
      now: () => T,
    });
    const s = await status();
    expect(s.source).toBe('relay');
    expect(s.health).toBe('ok');
    expect(s.relay).toEqual({ running: true, pid: 321, startedAt: new Date(T - 1000).toISOString() });
    expect(s.queue.chats).toEqual([
      { chat: 'whatsapp:…4567', pending: 2 },
      {
        chat: 'whatsapp:…6543',
        pending: 0,
        active: { startedAt: new Date(T).toISOString(), label: 'heartbeat', messages: 0 },
      },
    ]);
    expect(s.heartbeat.target).toBe('whatsapp:…4567');
    expect(s.schedules[0]).toEqual({
      id: 'daily',
      target: 'whatsapp:…6543',
      nextAt: new Date(T + 2000).toISOString(),
    });
    expect(s.channels[0]?.account).toBe('…4567');
    expect(JSON.stringify(s)).not.toMatch(/\+1555/);
    db.close();
  });

  it('mergeLanes puts a user run on its chat with its waiting count', () => {
    expect(
      mergeLanes({
        waiting: { 'twilio:+1': 3 },
        active: [{ chat: 'twilio:+1', kind: 'user', label: 'ignored', startedAt: 5, messages: 2 }],
      }),
    ).toEqual([{ chat: 'twilio:+1', pending: 3, active: { startedAt: 5, label: 'user', messages: 2 } }]);
  });
});

describe('questions and approvals waiting for an answer', () => {
  it('are read from the store without their text, masked in the snapshot, and rendered', async () => {
    const db = openDb(join(stateFolder(), 'q.db'), QUEUE_MIGRATIONS);
    const s = interactionStore(db);
    const a = await s.add(
      {
        chat: `twilio:${ALICE}`,
        type: 'approval',
        runKey: 'in:1',
        asker: 'codex',
        toolKind: 'shell',
        text: 'run: secret-cmd',
      },
      T,
    );
    await s.show(a.id, T + 1000, T + 600_000, { key: 'ask:1', items: [{ type: 'text', text: 'x' }] });
    await s.add(
      { chat: `twilio:${ALICE}`, type: 'question', runKey: 'in:1', asker: 'codex', text: 'secret question' },
      T + 2000,
    );
    const facts = readStatusFacts(db);
    expect(facts.waitingAnswers).toEqual([
      { chat: `twilio:${ALICE}`, type: 'approval', createdAt: T, shownAt: T + 1000 },
      { chat: `twilio:${ALICE}`, type: 'question', createdAt: T + 2000 },
    ]);
    const snap = buildSnapshot({
      ...readStore(facts),
      now: T + 61_000,
      source: 'store',
      relay: { running: false },
      channels: [],
    });
    expect(snap.waitingAnswers?.map((w) => [w.type, w.shownAt !== undefined])).toEqual([
      ['approval', true],
      ['question', false],
    ]);
    const json = JSON.stringify(snap);
    expect(json).not.toContain(ALICE);
    expect(json).not.toMatch(/secret/);
    const text = renderStatus(snap, T + 61_000);
    expect(text).toMatch(/waiting for an answer to an approval, asked 1m 0s ago/);
    expect(text).toMatch(/waiting for an answer to a question, not shown yet/);
    db.close();
  });
});

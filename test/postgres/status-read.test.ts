// The status reader on PostgreSQL (store/postgres/status-read.ts) says what the SQLite one says about
// the same history: the same operations through the ports of both engines, the same facts read back.
// And the offline reader (store/postgres/admin.ts: `status` and `doctor` with no relay running)
// reads the same facts without creating or migrating anything, and says when the server is away.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { StoreError, type Written } from '../../src/store/errors.js';
import { openStore, type Store } from '../../src/store/open.js';
import { postgresAdmin } from '../../src/store/postgres/admin.js';
import { openPostgresStore } from '../../src/store/postgres/store.js';
import type { StatusFacts } from '../../src/store/status-read.js';
import { inbound } from '../store/helpers.js';
import { freshDatabase } from '../support/postgres-db.js';

const CHAT = 'console:local' as const;
const NOW = 1_700_000_000_000;
const opened: Store[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function got<T>(p: Promise<Written<T>>): Promise<T> {
  const w = await p;
  if (!w.ok) throw new StoreError(w);
  return w.value;
}

/** One history: two messages answered in one run, a third waiting, a failed one, a task, a process. */
async function history(s: Store): Promise<void> {
  for (const m of ['a', 'b'])
    await got(s.queue.acceptInbound(inbound({ messageId: m, text: m }), { now: NOW, maxPending: 10 }));
  const claim = await got(s.queue.claimNextRun(CHAT, 10, NOW + 1, () => ({ count: 2 })));
  const ids = claim?.rows.map((r) => r.id) ?? [];
  await got(
    s.queue.finishRun({
      chat: CHAT,
      ids,
      now: NOW + 2,
      status: 'done',
      reply: { key: 'in:a', items: [{ type: 'text', text: 'hi' }] },
      session: { scope: CHAT, agent: 'claude', id: 'sess-1', generation: 0, confirmed: true, touch: true },
    }),
  );
  await got(
    s.queue.recordRun({
      chat: CHAT,
      agent: 'claude',
      label: 'user',
      startedAt: NOW + 1,
      durationMs: 1,
      outcome: 'ok',
      usage: { inputTokens: 10, outputTokens: 5, costUsd: 0.25 },
      day: '2023-11-14',
    }),
  );
  await got(s.queue.acceptInbound(inbound({ messageId: 'f', text: 'f' }), { now: NOW + 3, maxPending: 10 }));
  const failing = await got(s.queue.claimNextRun(CHAT, 10, NOW + 4, () => ({ count: 1 })));
  await got(
    s.queue.finishRun({
      chat: CHAT,
      ids: failing?.rows.map((r) => r.id) ?? [],
      now: NOW + 5,
      status: 'failed',
      note: 'timeout',
    }),
  );
  await got(s.queue.acceptInbound(inbound({ messageId: 'c', text: 'c' }), { now: NOW + 6, maxPending: 10 }));
  await s.tasks.add({ chat: CHAT, prompt: 'water the plants', every: '1d' }, 'call-1', 5, NOW);
  await s.ownership.register(
    { host: 'h1', pid: 4242, role: 'relay', startedAt: NOW, fingerprint: 'queue.whileBusy=0123456789' },
    NOW,
  );
}

/** The facts with what differs by construction (random ids) taken out. */
function comparable(f: StatusFacts) {
  return {
    ...f,
    jobStates: [...f.jobStates],
    tasks: f.tasks.map(({ id: _id, ...t }) => t),
    processes: f.processes?.map(({ id: _id, schemaVersion: _v, ...p }) => p),
  };
}

describe('the status reader on PostgreSQL', () => {
  it('reads what the SQLite reader reads after the same operations', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aw-status-'));
    dirs.push(dir);
    const lite = await openStore({ engine: 'sqlite', stateDir: dir });
    const url = await freshDatabase();
    const pgs = await openPostgresStore(url);
    opened.push(lite, pgs);
    await history(lite);
    await history(pgs);
    const [a, b] = [await lite.status.read(), await pgs.status.read()];
    expect(b.pending).toEqual({ [CHAT]: 1 });
    expect(b.runs).toHaveLength(1);
    expect(b.usage[0]).toMatchObject({ runs: 1, inputTokens: 10, costUsd: 0.25 });
    expect(b.inboxFailures).toEqual([{ chat: CHAT, note: 'timeout', at: NOW + 5, n: 1 }]);
    expect(b.processes?.map((p) => [p.role, p.pid])).toEqual([['relay', 4242]]);
    expect(b.sessions).toEqual([{ chat: CHAT, agent: 'claude', lastUsedAt: NOW + 2 }]);
    expect(b.replies).toEqual({ unsent: 1, expired: 0 });
    expect(b.tasks.map((t) => t.prompt)).toEqual(['water the plants']);
    expect(comparable(b)).toEqual(comparable(a));
  });

  it('offline (status, doctor): the same facts, read only; an empty database is no store and stays empty', async () => {
    const url = await freshDatabase();
    const admin = postgresAdmin(url);
    expect(await admin.statusFacts()).toBe(undefined);
    expect(await admin.health?.()).toMatchObject({ reachable: true, schemaVersion: 0 });
    const c = new pg.Client(url);
    await c.connect();
    const tables = async () =>
      (await c.query("SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'")).rows[0].n;
    expect(await tables()).toBe(0);
    const s = await openPostgresStore(url);
    opened.push(s);
    await history(s);
    expect(comparable((await admin.statusFacts())!)).toEqual(comparable(await s.status.read()));
    const health = await admin.health?.();
    expect(health).toMatchObject({ reachable: true, server: expect.stringMatching(/^PostgreSQL \d+/) });
    expect(health?.reachable && health.schemaVersion).toBe(health?.reachable && health.knownVersion);
    await c.end();
  });

  it('offline: a server that cannot be reached is said so, and backup points at pg_dump without the password', async () => {
    const admin = postgresAdmin('postgresql://aw:pw-hidden-77@%2Fno-such-socket-dir/agentwire');
    expect(await admin.statusFacts()).toBe(undefined);
    const h = await admin.health?.();
    expect(h?.reachable).toBe(false);
    expect(admin.where).toBe('postgresql://aw@%2Fno-such-socket-dir/agentwire');
    const b = await admin.backup('/nonexistent/copy');
    expect(b.ok).toBe(false);
    expect(!b.ok && b.error).toMatch(/pg_dump/);
    expect(JSON.stringify([h, b, admin.where])).not.toContain('pw-hidden-77');
  });
});

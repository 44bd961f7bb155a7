// Notifications between processes on one PostgreSQL database arrive by LISTEN/NOTIFY: process B's
// handler hears what process A said within a bound far shorter than B's poll interval (set to a
// minute here, so a poll cannot be what delivered it), also after B's listening connection was
// killed by the server and opened again.
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { type OwnershipTimings, ProcessOwner } from '../../src/queue/process-owner.js';
import type { Store } from '../../src/store/open.js';
import { openPostgresStore } from '../../src/store/postgres/store.js';
import { memoryLog } from '../queue/helpers.js';
import { freshDatabase } from '../support/postgres-db.js';

/** A poll (and renewal round) once a minute: only a push can deliver within BOUND_MS. */
const SLOW: OwnershipTimings = { leaseMs: 180_000, renewMs: 60_000, pollMs: 60_000 };
const BOUND_MS = 2_000;

const opened: { store: Store; owner: ProcessOwner }[] = [];
const admins: pg.Client[] = [];
afterEach(async () => {
  for (const p of opened.splice(0)) {
    await p.owner.stop().catch(() => undefined);
    await p.store.close().catch(() => undefined);
  }
  for (const c of admins.splice(0)) await c.end().catch(() => undefined);
});

async function proc(url: string, role: string) {
  const store = await openPostgresStore(url);
  const owner = await ProcessOwner.start(store.ownership, { role, fingerprint: 'f' }, SLOW, memoryLog().log);
  opened.push({ store, owner });
  return owner;
}

/** The keys `owner` hears on `chat_ready` from other processes, and a wait for the next one, bounded. */
function ears(owner: ProcessOwner) {
  const heard: string[] = [];
  let wake: (() => void) | undefined;
  owner.on('chat_ready', (key, own) => {
    if (own) return;
    heard.push(key);
    wake?.();
  });
  const next = async (key: string) => {
    const started = Date.now();
    while (!heard.includes(key)) {
      const left = BOUND_MS - (Date.now() - started);
      if (left <= 0) throw new Error(`${key} not heard within ${BOUND_MS} ms (heard: ${heard.join(', ')})`);
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, left).unref();
      });
    }
    return Date.now() - started;
  };
  return { heard, next };
}

async function admin(url: string): Promise<pg.Client> {
  const c = new pg.Client(url);
  await c.connect();
  admins.push(c);
  return c;
}

/**
 * Waits (bounded) until `n` listening connections to this test's database have said LISTEN and wait
 * idle (other files' relays listen on the same cluster at the same time, on their own databases).
 */
async function listening(c: pg.Client, n: number): Promise<void> {
  const until = Date.now() + 10_000;
  for (;;) {
    const r = await c.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
       WHERE application_name = 'agentwire-listen' AND state = 'idle' AND query LIKE 'LISTEN %'
         AND datname = current_database()`,
    );
    if (r.rows[0]?.n === n) return;
    if (Date.now() > until) throw new Error(`${r.rows[0]?.n} listening connections, not ${n}`);
    await c.query('SELECT pg_sleep(0.02)');
  }
}

describe('notifications between processes on PostgreSQL', () => {
  it("a notification from process A reaches B's handler at once, not at B's next poll", async () => {
    const url = await freshDatabase();
    const a = await proc(url, 'a');
    const b = await proc(url, 'b');
    const toB = ears(b);
    const toA = ears(a);
    for (let i = 0; i < 5; i++) {
      await a.notify('chat_ready', `console:a${i}`);
      expect(await toB.next(`console:a${i}`)).toBeLessThan(BOUND_MS);
    }
    await b.notify('chat_ready', 'console:b');
    await toA.next('console:b');
    // Each heard once, in order; nobody hears its own through the store.
    expect(toB.heard).toEqual(['console:a0', 'console:a1', 'console:a2', 'console:a3', 'console:a4']);
    expect(toA.heard).toEqual(['console:b']);
  });

  it('after the listening connection is killed, it is opened again and LISTENs again', async () => {
    const url = await freshDatabase();
    const a = await proc(url, 'a');
    const b = await proc(url, 'b');
    const toB = ears(b);
    const c = await admin(url);
    await listening(c, 2);
    const killed = await c.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
       WHERE application_name = 'agentwire-listen' AND datname = current_database()`,
    );
    expect(killed.rowCount).toBe(2);
    // Said while nobody listened: the reconnection rings, so it is read then, not a minute later.
    await a.notify('chat_ready', 'console:while-down');
    await listening(c, 2);
    await toB.next('console:while-down');
    await a.notify('chat_ready', 'console:after');
    expect(await toB.next('console:after')).toBeLessThan(BOUND_MS);
    expect(toB.heard).toEqual(['console:while-down', 'console:after']);
  });
});

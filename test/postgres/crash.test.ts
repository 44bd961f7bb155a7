// Three worker processes on one PostgreSQL database (test/postgres/fixtures/store-worker.mjs: each its
// own pool and holder), killed with SIGKILL 30 times, each time right after one of them claimed a
// message, and replaced, while 120 messages arrive in 4 chats. Every message is answered exactly
// once: done, one reply, sent once (its `tries` 1), no message finished or reply marked sent twice
// by any worker, and no message run again except after a kill (each extra try needs a kill). Needs
// the built store (npm run build).
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/open.js';
import { openPostgresStore } from '../../src/store/postgres/store.js';
import { type Proc, ROOT, spawnNode, waitFor } from '../e2e/helpers.js';
import { inbound } from '../store/helpers.js';
import { freshDatabase } from '../support/postgres-db.js';

const WORKER = join(ROOT, 'test/postgres/fixtures/store-worker.mjs');
const CHATS = ['a', 'b', 'c', 'd'];
const KILLS = 30;
const PER_KILL = 4;

const workers: Proc[] = [];
const stores: Store[] = [];
const clients: pg.Client[] = [];
afterEach(async () => {
  for (const w of workers.splice(0)) {
    if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
    await w.exit;
  }
  for (const s of stores.splice(0)) await s.close().catch(() => undefined);
  for (const c of clients.splice(0)) await c.end().catch(() => undefined);
});

const lines = (p: Proc, word: string) =>
  p
    .stdout()
    .split('\n')
    .filter((l) => l.startsWith(`${word} `))
    .map((l) => Number(l.slice(word.length + 1)));

describe('three workers on one PostgreSQL database, killed 30 times while messages flow', () => {
  it('answers every message exactly once, and runs none again but after a kill', async () => {
    const url = await freshDatabase();
    const store = await openPostgresStore(url);
    stores.push(store);
    let spawned = 0;
    const spawnWorker = () => {
      const w = spawnNode(
        [WORKER, url, `w${spawned++}`, CHATS.map((c) => `console:${c}`).join(',')],
        process.env,
      );
      workers.push(w);
      return w;
    };
    const live = [spawnWorker(), spawnWorker(), spawnWorker()];
    let sentIn = 0;
    const send = async (n: number) => {
      for (let i = 0; i < n; i++, sentIn++) {
        const chat = CHATS[sentIn % CHATS.length] as string;
        const w = await store.queue.acceptInbound(
          inbound({ chatId: chat, messageId: `m${sentIn}`, text: `q${sentIn}` }),
          {
            now: Date.now(),
            maxPending: 1000,
          },
        );
        expect(w.ok).toBe(true);
      }
    };

    const seenClaims = new Map<Proc, number>();
    for (let k = 0; k < KILLS; k++) {
      await send(PER_KILL);
      // The next worker that claims a message is killed at once, most likely in the middle of its run.
      let victim: Proc | undefined;
      const claimed = await waitFor(() => {
        victim = live.find((w) => lines(w, 'claimed').length > (seenClaims.get(w) ?? 0));
        return victim !== undefined;
      }, 20_000);
      expect(claimed, `kill ${k}: no worker claimed a message`).toBe(true);
      if (!victim) throw new Error('no victim');
      victim.child.kill('SIGKILL');
      expect((await victim.exit).signal).toBe('SIGKILL');
      live.splice(live.indexOf(victim), 1, spawnWorker());
      for (const w of live) seenClaims.set(w, lines(w, 'claimed').length);
    }
    const total = KILLS * PER_KILL;

    // Everything answered and sent, within a bound.
    const admin = new pg.Client(url);
    await admin.connect();
    clients.push(admin);
    const settled = async () => {
      const r = await admin.query<{ open: number; unsent: number }>(
        `SELECT (SELECT count(*)::int FROM inbox WHERE status <> 'done') AS open,
                (SELECT count(*)::int FROM outbox WHERE status <> 'sent') AS unsent`,
      );
      return r.rows[0]?.open === 0 && r.rows[0]?.unsent === 0;
    };
    const until = Date.now() + 60_000;
    while (!(await settled())) {
      expect(Date.now(), 'messages still open after 60 s').toBeLessThan(until);
      await admin.query('SELECT pg_sleep(0.05)');
    }

    const inboxRows = (
      await admin.query<{ id: number; tries: number }>(`SELECT id::int, tries FROM inbox ORDER BY id`)
    ).rows;
    const outboxRows = (
      await admin.query<{ key: string; status: string; tries: number }>(
        `SELECT key, status, tries FROM outbox ORDER BY id`,
      )
    ).rows;
    expect(inboxRows).toHaveLength(total);
    // One reply per message, each sent once.
    expect(outboxRows.map((r) => r.key).sort()).toEqual(inboxRows.map((r) => `in:${r.id}`).sort());
    expect(outboxRows.filter((r) => r.status !== 'sent' || r.tries !== 1)).toEqual([]);
    // No worker finished a message, or marked a reply sent, that another (or itself) already had.
    const all = workers.flatMap((w) => lines(w, 'finished'));
    expect(all.length).toBe(new Set(all).size);
    const sent = workers.flatMap((w) => lines(w, 'sent'));
    expect(sent.length).toBe(new Set(sent).size);
    // A message runs again only when the worker running it was killed: at most one extra try per kill.
    const extra = inboxRows.reduce((n, r) => n + (r.tries - 1), 0);
    expect(extra).toBeLessThanOrEqual(KILLS);
    expect(spawned).toBe(3 + KILLS);
  }, 180_000);
});

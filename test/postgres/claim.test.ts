// A claim on PostgreSQL reads the chat's waiting messages, lets the caller choose, and writes the
// choice only if those messages are still the chat's first waiting ones (postgres/claim.ts). Here
// another process stores a message for the chat between the read and the write (the write is held
// back on the client until it has): the choice is made again on both messages, never applied to a
// state it was not made on.
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import type { InboxRow } from '../../src/store/contract/inbox.js';
import type { Written } from '../../src/store/errors.js';
import type { Store } from '../../src/store/open.js';
import { openPostgresStore } from '../../src/store/postgres/store.js';
import { inbound } from '../store/helpers.js';
import { freshDatabase } from '../support/postgres-db.js';

const CHAT = 'console:local' as const;
const NOW = 1_700_000_000_000;

const opened: Store[] = [];
const realQuery = pg.Client.prototype.query;
afterEach(async () => {
  pg.Client.prototype.query = realQuery;
  for (const s of opened.splice(0)) await s.close().catch(() => undefined);
});

function value<T>(w: Written<T>): T {
  if (!w.ok) throw new Error(`refused: ${w.message}`);
  return w.value;
}

describe('a claim whose waiting messages changed after the choice', () => {
  it('is chosen again on what waits now, and takes exactly what the second choice said', async () => {
    const url = await freshDatabase();
    const a = await openPostgresStore(url);
    opened.push(a);
    const b = await openPostgresStore(url);
    opened.push(b);
    value(await a.queue.acceptInbound(inbound({ messageId: 'first' }), { now: NOW, maxPending: 10 }));

    // Before A's first write of a claim reaches the server, B stores a second message for the chat.
    let held = false;
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const sql = typeof args[0] === 'string' ? args[0] : '';
      if (!held && sql.startsWith('SELECT aw_claim(')) {
        held = true;
        return b.queue
          .acceptInbound(inbound({ messageId: 'second' }), { now: NOW, maxPending: 10 })
          .then(() => (realQuery as (...a: unknown[]) => unknown).apply(this, args));
      }
      return (realQuery as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof realQuery;

    const seen: string[][] = [];
    const claim = value(
      await a.queue.claimNextRun(CHAT, 10, NOW, (waiting: readonly InboxRow[]) => {
        seen.push(waiting.map((w) => w.messageId));
        return { count: waiting.length };
      }),
    );
    expect(held).toBe(true);
    expect(seen).toEqual([['first'], ['first', 'second']]);
    expect(claim?.rows.map((r) => r.messageId)).toEqual(['first', 'second']);
    const rows = await a.queue.unfinished(CHAT);
    expect(rows.map((r) => [r.messageId, r.status, r.tries])).toEqual([
      ['first', 'running', 1],
      ['second', 'running', 1],
    ]);
  });
});

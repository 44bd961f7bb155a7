// Events from outside on PostgreSQL (the rules of store/events.ts): stored once per source key, run
// in due order, then name, then arrival. Names sort bytewise (COLLATE "C"), as SQLite sorts them,
// whatever the database's own collation.
import type { AddEventResult, EventState, EventStore, StoredEvent } from '../events.js';
import { escapeNul, unescapeNul } from './nul.js';
import { inTx, type Pool, type Queryable } from './pool.js';

interface Row {
  id: number;
  source: string;
  chat: string;
  prompt: string;
  due_at: number;
  order_name: string;
  options: string;
  state: string;
  attempts: number;
  outcome: string | null;
}

const COLUMNS = 'id, source, chat, prompt, due_at, order_name, options, state, attempts, outcome';
const RUN_ORDER = 'ORDER BY due_at, order_name COLLATE "C", id';

const toEvent = (r: Row): StoredEvent => ({
  id: r.id,
  source: r.source,
  chat: r.chat,
  prompt: unescapeNul(r.prompt),
  dueAt: r.due_at,
  orderName: r.order_name,
  options: r.options,
  state: r.state as EventState,
  attempts: r.attempts,
  ...(r.outcome !== null && { outcome: r.outcome }),
});

async function byId(q: Queryable, id: number): Promise<StoredEvent | undefined> {
  const r = await q.query<Row>(`SELECT ${COLUMNS} FROM outside_events WHERE id = $1`, [id]);
  return r.rows[0] && toEvent(r.rows[0]);
}

export function pgEventStore(pool: Pool): EventStore {
  const list = async (sql: string, params: unknown[] = []) =>
    (await pool.query<Row>(sql, params)).rows.map(toEvent);
  return {
    addAll: (events, now) =>
      inTx(pool, [], async (c) => {
        const out: AddEventResult[] = [];
        for (const e of events) {
          const r = await c.query<{ id: number }>(
            `INSERT INTO outside_events (source_key, source, chat, prompt, due_at, order_name, options, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (source_key) DO NOTHING RETURNING id`,
            [e.key, e.source, e.chat, escapeNul(e.prompt), e.dueAt, e.orderName, e.options, now],
          );
          if (r.rows[0]) {
            out.push({ type: 'added', id: r.rows[0].id });
            continue;
          }
          // Stored before (or by another process meanwhile: this statement sees its commit).
          const same = await c.query<{ id: number }>('SELECT id FROM outside_events WHERE source_key = $1', [
            e.key,
          ]);
          out.push({ type: 'duplicate', id: same.rows[0]?.id ?? 0 });
        }
        return out;
      }),
    open: () => list(`SELECT ${COLUMNS} FROM outside_events WHERE state <> 'done' ${RUN_ORDER}`),
    dueFor: (chat, now, limit) =>
      list(
        `SELECT ${COLUMNS} FROM outside_events WHERE chat = $1 AND state IN ('waiting', 'running') AND due_at <= $2
         ${RUN_ORDER} LIMIT $3`,
        [chat, now, limit],
      ),
    begin: async (id, seen) =>
      (
        await list(
          `UPDATE outside_events SET state = 'running', attempts = attempts + 1
           WHERE id = $1 AND state = $2 AND attempts = $3 AND state <> 'done' RETURNING ${COLUMNS}`,
          [id, seen.state, seen.attempts],
        )
      )[0],
    release: async (id, attempts) => {
      await pool.query(
        `UPDATE outside_events SET state = 'waiting', attempts = greatest(attempts - 1, 0)
         WHERE id = $1 AND state = 'running' AND attempts = $2`,
        [id, attempts],
      );
    },
    finish: async (id, outcome, now) => {
      await pool.query(
        `UPDATE outside_events SET state = 'done', outcome = $2, finished_at = $3 WHERE id = $1`,
        [id, outcome, now],
      );
    },
    prune: async (before) =>
      (await pool.query(`DELETE FROM outside_events WHERE state = 'done' AND finished_at < $1`, [before]))
        .rowCount ?? 0,
    get: (id) => byId(pool, id),
  };
}

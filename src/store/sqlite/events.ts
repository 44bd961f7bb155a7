// Events from outside (files in <state>/events/, `POST /hooks/<name>`, `agentwire trigger`): each is
// stored here before its source is let go (the file deleted, the HTTP request answered), then run by
// src/events/ in the chat's run slot. A row is keyed by where it came from (`source_key`, unique), so a
// file read again after a crash, or a webhook delivered twice, is stored once.
//
// A row is `waiting` until its run begins (`running`, the begin saved before the agent starts), then
// `done` with its outcome. A row still `running` at start was cut off by a crash: it is tried once
// more, then given up (the same rule as a one-shot schedule).

import type { AddEventResult, EventState, EventStore, StoredEvent } from '../events.js';
import { type Db, type Migration, prepared, transaction } from './db.js';

export type { AddEventResult, EventState, EventStore, NewEvent, StoredEvent } from '../events.js';

export const eventsMigration: Migration = {
  module: 'outside_events',
  steps: [
    `CREATE TABLE outside_events (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      source_key TEXT NOT NULL UNIQUE,
      source TEXT NOT NULL,
      chat TEXT NOT NULL,
      prompt TEXT NOT NULL,
      due_at INTEGER NOT NULL,
      order_name TEXT NOT NULL,
      options TEXT NOT NULL,
      state TEXT NOT NULL DEFAULT 'waiting',
      attempts INTEGER NOT NULL DEFAULT 0,
      outcome TEXT,
      created_at INTEGER NOT NULL,
      finished_at INTEGER
    );
    CREATE INDEX outside_events_due ON outside_events (state, due_at, order_name, id);
    CREATE INDEX outside_events_chat ON outside_events (chat, state, due_at, order_name, id);`,
  ],
};

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

const toEvent = (r: Row): StoredEvent => ({
  id: Number(r.id),
  source: r.source,
  chat: r.chat,
  prompt: r.prompt,
  dueAt: Number(r.due_at),
  orderName: r.order_name,
  options: r.options,
  state: r.state as EventState,
  attempts: Number(r.attempts),
  ...(r.outcome !== null && { outcome: r.outcome }),
});

export function eventStore(db: Db): EventStore {
  const byId = (id: number): StoredEvent | undefined => {
    const r = prepared(db, `SELECT ${COLUMNS} FROM outside_events WHERE id = ?`).get(id) as Row | undefined;
    return r && toEvent(r);
  };
  return {
    addAll: async (events, now) =>
      transaction(db, () =>
        events.map((e): AddEventResult => {
          const same = prepared(db, 'SELECT id FROM outside_events WHERE source_key = ?').get(e.key) as
            | { id: number }
            | undefined;
          if (same) return { type: 'duplicate', id: Number(same.id) };
          const r = prepared(
            db,
            `INSERT INTO outside_events (source_key, source, chat, prompt, due_at, order_name, options, created_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
          ).run(e.key, e.source, e.chat, e.prompt, e.dueAt, e.orderName, e.options, now);
          return { type: 'added', id: Number(r.lastInsertRowid) };
        }),
      ),
    open: async () =>
      (
        prepared(
          db,
          `SELECT ${COLUMNS} FROM outside_events WHERE state != 'done' ORDER BY due_at, order_name, id`,
        ).all() as unknown as Row[]
      ).map(toEvent),
    dueFor: async (chat, now, limit) =>
      (
        prepared(
          db,
          `SELECT ${COLUMNS} FROM outside_events WHERE chat = ? AND state IN ('waiting', 'running') AND due_at <= ?
           ORDER BY due_at, order_name, id LIMIT ?`,
        ).all(chat, now, limit) as unknown as Row[]
      ).map(toEvent),
    begin: async (id, seen) => {
      const r = prepared(
        db,
        `UPDATE outside_events SET state = 'running', attempts = attempts + 1
         WHERE id = ? AND state = ? AND attempts = ? AND state != 'done' RETURNING ${COLUMNS}`,
      ).get(id, seen.state, seen.attempts) as Row | undefined;
      return r && toEvent(r);
    },
    release: async (id, attempts) => {
      prepared(
        db,
        `UPDATE outside_events SET state = 'waiting', attempts = MAX(attempts - 1, 0)
         WHERE id = ? AND state = 'running' AND attempts = ?`,
      ).run(id, attempts);
    },
    finish: async (id, outcome, now) => {
      prepared(db, `UPDATE outside_events SET state = 'done', outcome = ?, finished_at = ? WHERE id = ?`).run(
        outcome,
        now,
        id,
      );
    },
    prune: async (before) =>
      Number(
        prepared(db, `DELETE FROM outside_events WHERE state = 'done' AND finished_at < ?`).run(before)
          .changes,
      ),
    get: async (id) => byId(id),
  };
}

// Events from outside (files in <state>/events/, `POST /hooks/<name>`, `agentwire trigger`): each is
// stored here before its source is let go (the file deleted, the HTTP request answered), then run by
// src/events/ in the chat's lane. A row is keyed by where it came from (`source_key`, unique), so a
// file read again after a crash, or a webhook delivered twice, is stored once.
//
// A row is `waiting` until its run begins (`running`, the begin saved before the agent starts), then
// `done` with its outcome. A row still `running` at start was cut off by a crash: it is tried once
// more, then given up (the same rule as a one-shot schedule).
import { type Db, type Migration, prepared, transaction } from './db.js';

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

export type EventState = 'waiting' | 'running' | 'done';

/** One stored event. `options` is the runner's own JSON (session, agent, quiet…), opaque here. */
export interface StoredEvent {
  id: number;
  /** `file:<name>`, `hook:<name>`, `trigger`: for logs and status, never the body. */
  source: string;
  chat: string;
  prompt: string;
  dueAt: number;
  /** Ties at the same due time run in this order (a file's name). */
  orderName: string;
  options: string;
  state: EventState;
  attempts: number;
  outcome?: string;
}

export type NewEvent = Pick<StoredEvent, 'source' | 'chat' | 'prompt' | 'dueAt' | 'orderName' | 'options'>;

export type AddEventResult = { type: 'added'; id: number } | { type: 'duplicate'; id: number };

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

export interface EventStore {
  /** Stores the events of one batch in one transaction; one already stored under its key is a duplicate. */
  addAll(events: readonly (NewEvent & { key: string })[], now: number): Promise<AddEventResult[]>;
  /** Waiting and running events, in run order: due time, then name, then arrival. */
  open(): Promise<StoredEvent[]>;
  /** The first `limit` open events of one chat due by `now`, in run order (a chat's next ones). */
  dueFor(chat: string, now: number, limit: number): Promise<StoredEvent[]>;
  /** Saves that a run begins (before the agent starts), counting the attempt. */
  begin(id: number): Promise<StoredEvent | undefined>;
  /** Back to waiting (the chat was busy, or the relay stopped before the run began). */
  release(id: number): Promise<void>;
  finish(id: number, outcome: string, now: number): Promise<void>;
  /** Finished rows older than `before` are deleted (their keys with them). */
  prune(before: number): Promise<number>;
  get(id: number): Promise<StoredEvent | undefined>;
}

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
    begin: async (id) =>
      transaction(db, () => {
        prepared(
          db,
          `UPDATE outside_events SET state = 'running', attempts = attempts + 1 WHERE id = ? AND state != 'done'`,
        ).run(id);
        return byId(id);
      }),
    release: async (id) => {
      prepared(
        db,
        `UPDATE outside_events SET state = 'waiting', attempts = MAX(attempts - 1, 0) WHERE id = ? AND state = 'running'`,
      ).run(id);
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

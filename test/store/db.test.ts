import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { StoreError } from '../../src/store/errors.js';
import { openDb, prepared } from '../../src/store/sqlite/db.js';
import { inboxMigration } from '../../src/store/sqlite/inbox.js';
import { QUEUE_MIGRATIONS } from '../../src/store/sqlite/queue-schema.js';
import { tempDb } from './helpers.js';

describe('prepared', () => {
  const opened: ReturnType<typeof tempDb>[] = [];
  afterEach(() => {
    for (const t of opened.splice(0)) t.cleanup();
  });
  const open = () => {
    const t = tempDb();
    opened.push(t);
    return t;
  };

  it('compiles a statement once per connection and SQL text', () => {
    const { db, reopen } = open();
    const sql = 'SELECT count(*) AS n FROM inbox';
    const st = prepared(db, sql);
    expect(prepared(db, sql)).toBe(st);
    expect(prepared(db, 'SELECT count(*) AS n FROM outbox')).not.toBe(st);
    // Another connection to the same file has its own statements.
    expect(prepared(reopen(), sql)).not.toBe(st);
  });

  it('lets go of the statements when the connection closes', () => {
    const { db } = open();
    prepared(db, 'SELECT 1');
    db.close();
    // A cached statement would be handed out here (and keep the closed connection in memory).
    expect(() => prepared(db, 'SELECT 1')).toThrow(/not open/);
  });

  it('compiles per call for a connection not opened by openDb', () => {
    const db = new DatabaseSync(':memory:');
    try {
      expect(prepared(db, 'SELECT 1')).not.toBe(prepared(db, 'SELECT 1'));
    } finally {
      db.close();
    }
  });

  it('serves callers one after another, also inside a transaction that rolls back', () => {
    const { db } = open();
    db.exec('CREATE TABLE t (x INTEGER)');
    const insert = () => prepared(db, 'INSERT INTO t (x) VALUES (?)');
    const count = () => (prepared(db, 'SELECT count(*) AS n FROM t').get() as { n: number }).n;
    insert().run(1);
    db.exec('BEGIN IMMEDIATE');
    insert().run(2);
    expect(count()).toBe(2);
    db.exec('ROLLBACK');
    expect(count()).toBe(1);
  });

  it('still works after the schema changed under a compiled statement', () => {
    const { db } = open();
    db.exec('CREATE TABLE t (x INTEGER)');
    const read = () => prepared(db, 'SELECT * FROM t').all();
    expect(read()).toEqual([]);
    db.exec("ALTER TABLE t ADD COLUMN y TEXT; INSERT INTO t (x, y) VALUES (1, 'a')");
    expect(read()).toEqual([{ x: 1, y: 'a' }]);
  });
});

describe('migrate: a store written by a newer agentwire', () => {
  it('is refused, naming the version found and the version known, and nothing is written', () => {
    const t = tempDb();
    try {
      t.db.prepare("UPDATE schema_migrations SET version = 99 WHERE module = 'inbox'").run();
      const known = inboxMigration.steps.length;
      const err = (() => {
        try {
          openDb(t.file, QUEUE_MIGRATIONS);
        } catch (e) {
          return e;
        }
      })();
      expect(err).toBeInstanceOf(StoreError);
      expect((err as Error).message).toBe(
        `The store was written by a newer agentwire: its inbox tables are at schema version 99, ` +
          `and this agentwire knows version ${known} at most; upgrade agentwire to open it.`,
      );
      const versions = t.db.prepare('SELECT module, version FROM schema_migrations').all();
      expect(versions).toContainEqual({ module: 'inbox', version: 99 });
    } finally {
      t.cleanup();
    }
  });
});

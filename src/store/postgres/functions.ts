// Server-side functions of the PostgreSQL engine, created by the migration (their own module, after
// every table's). An operation that needs no decision from the caller between its statements runs as
// one function call: one round trip instead of BEGIN, its statements and COMMIT, and one transaction
// all the same (the call's own). Inside a function each statement takes a new snapshot (READ
// COMMITTED, VOLATILE), so a statement after the advisory lock sees what earlier holders committed,
// as in postgres/pool.ts's transactions.
import { NOTIFY_CHANNEL } from './listen.js';
import type { PgMigration } from './migrate.js';
import { lockKey } from './pool.js';

/**
 * Notifications: the row and its NOTIFY in one call, under the table's one lock (ids commit in their
 * order, postgres/ownership.ts). The NOTIFY is sent at commit, so a listener reads a committed row.
 */
const notify = `
CREATE FUNCTION aw_notify(p_topic TEXT, p_key TEXT, p_origin TEXT, p_at BIGINT) RETURNS BIGINT
LANGUAGE plpgsql VOLATILE AS $$
DECLARE nid BIGINT;
BEGIN
  PERFORM pg_advisory_xact_lock(${lockKey('notifications')});
  INSERT INTO notifications (topic, key, origin, at) VALUES (p_topic, p_key, p_origin, p_at) RETURNING id INTO nid;
  PERFORM pg_notify('${NOTIFY_CHANNEL}', nid::text);
  RETURN nid;
END $$;`;

export const functions: PgMigration = {
  module: 'functions',
  steps: [notify],
};

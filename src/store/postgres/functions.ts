// Server-side functions of the PostgreSQL engine, created by the migration (their own module, after
// every table's). An operation that needs no decision from the caller between its statements runs as
// one function call: one round trip instead of BEGIN, its statements and COMMIT, and one transaction
// all the same (the call's own). Inside a function each statement takes a new snapshot (READ
// COMMITTED, VOLATILE), so a statement after the advisory lock sees what earlier holders committed,
// as in postgres/pool.ts's transactions.
import { FENCE_REFUSED } from './errors.js';
import { chatWrites } from './functions-writes.js';
import { NOTIFY_CHANNEL } from './listen.js';
import type { PgMigration } from './migrate.js';
import { DB_NOW_MS, lockKey } from './pool.js';

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

/** The fence check of postgres/fence.ts in SQL: FENCE_REFUSED, with the lease as it is in DETAIL. */
const fence = `
CREATE FUNCTION aw_assert_fence(p_fence_chat TEXT, p_chat TEXT, p_holder TEXT, p_epoch BIGINT) RETURNS VOID
LANGUAGE plpgsql VOLATILE AS $$
DECLARE cur RECORD;
BEGIN
  IF p_holder IS NULL THEN RETURN; END IF;
  IF p_chat IS DISTINCT FROM p_fence_chat THEN
    RAISE EXCEPTION 'the lease of a chat moved' USING ERRCODE = '${FENCE_REFUSED}', DETAIL = 'null';
  END IF;
  SELECT holder, epoch INTO cur FROM chat_leases WHERE chat = p_fence_chat FOR SHARE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'the lease of a chat moved' USING ERRCODE = '${FENCE_REFUSED}', DETAIL = 'null';
  END IF;
  IF cur.holder IS DISTINCT FROM p_holder OR cur.epoch <> p_epoch THEN
    RAISE EXCEPTION 'the lease of a chat moved' USING ERRCODE = '${FENCE_REFUSED}',
      DETAIL = json_build_object('holder', cur.holder, 'epoch', cur.epoch)::text;
  END IF;
END $$;`;

/** A reply's items under its key, as postgres/outbox.ts writes them (never overwriting). */
const outbound = `
CREATE FUNCTION aw_enqueue(p_chat TEXT, p_key TEXT, p_items JSONB[], p_now BIGINT) RETURNS INTEGER
LANGUAGE plpgsql VOLATILE AS $$
DECLARE n INTEGER;
BEGIN
  IF p_items IS NULL OR cardinality(p_items) = 0 THEN RETURN 0; END IF;
  INSERT INTO outbox (key, idx, chat, item, created_at)
  SELECT p_key, t.n - 1, p_chat, t.item, p_now FROM unnest(p_items) WITH ORDINALITY AS t(item, n)
  ON CONFLICT (key, idx) DO NOTHING;
  GET DIAGNOSTICS n = ROW_COUNT;
  RETURN n;
END $$;`;

/**
 * acceptInbound (postgres/queue.ts): under the chat's lock, the message stored (or dropped past the
 * cap, as insertInbound decides) and a dropped one's notice written. No row: a duplicate.
 */
const accept = `
CREATE FUNCTION aw_accept_inbound(p_lock BIGINT, p_channel TEXT, p_message_id TEXT, p_chat TEXT,
    p_sender_id TEXT, p_sender_name TEXT, p_text TEXT, p_media JSONB, p_context TEXT, p_is_group BOOLEAN,
    p_sent_at BIGINT, p_now BIGINT, p_remote_media JSONB, p_max_pending INTEGER, p_notice JSONB[])
RETURNS TABLE (r_id BIGINT, r_status TEXT)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE v_id BIGINT; v_status TEXT;
BEGIN
  PERFORM pg_advisory_xact_lock(p_lock);
  v_status := CASE WHEN p_max_pending IS NOT NULL
      AND (SELECT count(*) FROM inbox WHERE chat = p_chat AND status = 'pending') >= p_max_pending
    THEN 'dropped' ELSE 'pending' END;
  INSERT INTO inbox (channel, message_id, chat, kind, sender_id, sender_name, text, media, context,
      is_group, sent_at, received_at, status, finished_at, note, remote_media)
  VALUES (p_channel, p_message_id, p_chat, 'message', p_sender_id, p_sender_name, p_text, p_media, p_context,
      p_is_group, p_sent_at, p_now, v_status, CASE WHEN v_status = 'dropped' THEN p_now END,
      CASE WHEN v_status = 'dropped' THEN 'queue_full' END, p_remote_media)
  ON CONFLICT (channel, message_id) DO NOTHING
  RETURNING id INTO v_id;
  IF v_id IS NULL THEN RETURN; END IF;
  IF v_status = 'dropped' THEN PERFORM aw_enqueue(p_chat, 'drop:' || v_id, p_notice, p_now); END IF;
  r_id := v_id;
  r_status := v_status;
  RETURN NEXT;
END $$;`;

/**
 * claimNextRun's write (postgres/claim.ts): under the chat's lock and fence, the messages chosen
 * become running, only if the chat's first waiting messages are still the ones the choice saw;
 * false otherwise (the caller reads and chooses again).
 */
const claim = `
CREATE FUNCTION aw_claim(p_lock BIGINT, p_chat TEXT, p_seen BIGINT[], p_limit INTEGER, p_ids BIGINT[],
    p_now BIGINT, p_holder TEXT, p_epoch BIGINT)
RETURNS BOOLEAN
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(p_lock);
  PERFORM aw_assert_fence(p_chat, p_chat, p_holder, p_epoch);
  IF (SELECT coalesce(array_agg(id ORDER BY id), '{}') FROM
        (SELECT id FROM inbox WHERE chat = p_chat AND status = 'pending' ORDER BY id LIMIT p_limit) w)
     IS DISTINCT FROM p_seen THEN
    RETURN false;
  END IF;
  UPDATE inbox SET status = 'running', tries = tries + 1, started_at = p_now, owner = p_holder,
      lease_epoch = p_epoch
  WHERE id = ANY(p_ids) AND status = 'pending';
  RETURN true;
END $$;`;

/** A run's waiting messages read under its fence (the first half of a claim, postgres/claim.ts). */
const claimRead = `
CREATE FUNCTION aw_claim_read(p_chat TEXT, p_limit INTEGER, p_holder TEXT, p_epoch BIGINT) RETURNS SETOF inbox
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  PERFORM aw_assert_fence(p_chat, p_chat, p_holder, p_epoch);
  RETURN QUERY SELECT * FROM inbox WHERE chat = p_chat AND status = 'pending' ORDER BY id LIMIT p_limit;
END $$;`;

/**
 * finishRun (postgres/queue.ts): under the chat's lock (then the session scope's: names sorted, as
 * pool.ts takes them) and fence, the reply written, the messages finished, the session kept (only in
 * the generation the run started in, as postgres/sessions.ts keepSession).
 */
const finish = `
CREATE FUNCTION aw_finish_run(p_chat_lock BIGINT, p_scope_lock BIGINT, p_chat TEXT, p_holder TEXT, p_epoch BIGINT,
    p_key TEXT, p_items JSONB[], p_ids BIGINT[], p_status TEXT, p_now BIGINT, p_note TEXT,
    p_scope TEXT, p_agent TEXT, p_session_id TEXT, p_generation INTEGER, p_confirmed BOOLEAN, p_touch BOOLEAN)
RETURNS VOID
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(p_chat_lock);
  IF p_scope_lock IS NOT NULL THEN PERFORM pg_advisory_xact_lock(p_scope_lock); END IF;
  PERFORM aw_assert_fence(p_chat, p_chat, p_holder, p_epoch);
  IF p_key IS NOT NULL THEN PERFORM aw_enqueue(p_chat, p_key, p_items, p_now); END IF;
  IF cardinality(p_ids) > 0 THEN
    UPDATE inbox SET status = p_status, finished_at = p_now, note = p_note WHERE id = ANY(p_ids);
  END IF;
  IF p_session_id IS NOT NULL THEN
    INSERT INTO sessions AS cur (scope, agent, session_id, created_at, last_used_at, confirmed)
    SELECT p_scope, p_agent, p_session_id, p_now, p_now, p_confirmed
    WHERE coalesce((SELECT generation FROM session_generations WHERE scope = p_scope), 0) = p_generation
    ON CONFLICT (scope, agent) DO UPDATE SET
      last_used_at = CASE WHEN cur.session_id = excluded.session_id AND NOT p_touch
                          THEN cur.last_used_at ELSE excluded.last_used_at END,
      created_at = CASE WHEN cur.session_id = excluded.session_id THEN cur.created_at ELSE excluded.created_at END,
      confirmed = CASE WHEN cur.session_id = excluded.session_id THEN cur.confirmed OR excluded.confirmed
                       ELSE excluded.confirmed END,
      session_id = excluded.session_id;
  END IF;
END $$;`;

/** markChunkSent with a fence: the chunk's chat read, its lease checked, the chunk marked sent. */
const markSent = `
CREATE FUNCTION aw_mark_sent(p_id BIGINT, p_now BIGINT, p_provider TEXT, p_fence_chat TEXT, p_holder TEXT,
    p_epoch BIGINT)
RETURNS VOID
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  PERFORM aw_assert_fence(p_fence_chat, coalesce((SELECT chat FROM outbox WHERE id = p_id), ''), p_holder, p_epoch);
  UPDATE outbox SET status = 'sent', sent_at = p_now, provider_id = p_provider, tries = tries + 1 WHERE id = p_id;
END $$;`;

/**
 * aw_accept_inbound as above, also naming the chat's live lease holder (none: free or expired) and
 * until when it holds it, or else the process that last ran the chat and when it was last seen alive,
 * read after the row is stored: a process that does not hold the chat tells the one that runs it at
 * once instead of reading and trying the lease first (one call instead of three, and no lease attempt
 * that can only fail). A return type cannot be replaced, so the function is dropped and made anew.
 */
const acceptNamingHolder = `
DROP FUNCTION aw_accept_inbound(BIGINT, TEXT, TEXT, TEXT, TEXT, TEXT, TEXT, JSONB, TEXT, BOOLEAN, BIGINT,
    BIGINT, JSONB, INTEGER, JSONB[]);
CREATE FUNCTION aw_accept_inbound(p_lock BIGINT, p_channel TEXT, p_message_id TEXT, p_chat TEXT,
    p_sender_id TEXT, p_sender_name TEXT, p_text TEXT, p_media JSONB, p_context TEXT, p_is_group BOOLEAN,
    p_sent_at BIGINT, p_now BIGINT, p_remote_media JSONB, p_max_pending INTEGER, p_notice JSONB[])
RETURNS TABLE (r_id BIGINT, r_status TEXT, r_holder TEXT, r_held_until BIGINT, r_last_holder TEXT,
    r_last_seen BIGINT)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE v_id BIGINT; v_status TEXT;
BEGIN
  PERFORM pg_advisory_xact_lock(p_lock);
  v_status := CASE WHEN p_max_pending IS NOT NULL
      AND (SELECT count(*) FROM inbox WHERE chat = p_chat AND status = 'pending') >= p_max_pending
    THEN 'dropped' ELSE 'pending' END;
  INSERT INTO inbox (channel, message_id, chat, kind, sender_id, sender_name, text, media, context,
      is_group, sent_at, received_at, status, finished_at, note, remote_media)
  VALUES (p_channel, p_message_id, p_chat, 'message', p_sender_id, p_sender_name, p_text, p_media, p_context,
      p_is_group, p_sent_at, p_now, v_status, CASE WHEN v_status = 'dropped' THEN p_now END,
      CASE WHEN v_status = 'dropped' THEN 'queue_full' END, p_remote_media)
  ON CONFLICT (channel, message_id) DO NOTHING
  RETURNING id INTO v_id;
  IF v_id IS NULL THEN RETURN; END IF;
  IF v_status = 'dropped' THEN PERFORM aw_enqueue(p_chat, 'drop:' || v_id, p_notice, p_now); END IF;
  r_id := v_id;
  r_status := v_status;
  SELECT CASE WHEN l.expires_at > ${DB_NOW_MS} THEN l.holder END, l.expires_at, l.last_holder, p.last_seen
  INTO r_holder, r_held_until, r_last_holder, r_last_seen
  FROM chat_leases l LEFT JOIN processes p ON p.id = l.last_holder WHERE l.chat = p_chat;
  RETURN NEXT;
END $$;`;

export const functions: PgMigration = {
  module: 'functions',
  steps: [
    notify,
    [fence, outbound, accept, claim, claimRead, finish, markSent].join('\n'),
    chatWrites,
    acceptNamingHolder,
  ],
};

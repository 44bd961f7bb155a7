// More of the chat's writes as server-side functions (postgres/functions.ts says why: one round trip
// instead of BEGIN, the statements and COMMIT): a run's history row, a run handed back to the queue,
// a reply written outside a run's finish (progress, a tool's send_message, a command's answer), and
// recovery after a crash. Each takes the locks its transaction in postgres/queue.ts took, in the same
// sorted order, and checks the same fence (aw_assert_fence: a refusal is SQLSTATE AWF01).
import { FENCE_REFUSED } from './errors.js';

/** A session kept in the generation the run started in (postgres/sessions.ts keepSession). */
const keepSession = `
CREATE FUNCTION aw_keep_session(p_scope TEXT, p_agent TEXT, p_session_id TEXT, p_now BIGINT,
    p_confirmed BOOLEAN, p_generation INTEGER, p_touch BOOLEAN)
RETURNS VOID
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
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
END $$;`;

/**
 * requeueRun: under the fence chat's lock (then the session scope's), the fence checked, the running
 * messages waiting again (their try not counted) and the session kept.
 */
const requeue = `
CREATE FUNCTION aw_requeue_run(p_chat_lock BIGINT, p_scope_lock BIGINT, p_fence_chat TEXT, p_holder TEXT,
    p_epoch BIGINT, p_ids BIGINT[], p_now BIGINT, p_scope TEXT, p_agent TEXT, p_session_id TEXT,
    p_generation INTEGER, p_confirmed BOOLEAN, p_touch BOOLEAN)
RETURNS VOID
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  IF p_chat_lock IS NOT NULL THEN PERFORM pg_advisory_xact_lock(p_chat_lock); END IF;
  IF p_scope_lock IS NOT NULL THEN PERFORM pg_advisory_xact_lock(p_scope_lock); END IF;
  PERFORM aw_assert_fence(p_fence_chat, p_fence_chat, p_holder, p_epoch);
  IF cardinality(p_ids) > 0 THEN
    UPDATE inbox SET status = 'pending', tries = greatest(0, tries - 1)
    WHERE id = ANY(p_ids) AND status = 'running';
  END IF;
  IF p_session_id IS NOT NULL THEN
    PERFORM aw_keep_session(p_scope, p_agent, p_session_id, p_now, p_confirmed, p_generation, p_touch);
  END IF;
END $$;`;

/**
 * enqueueReply and enqueueForChat: under the target chat's lock, the writer's fence checked (its
 * lease must be of `p_fence_of`: the target chat for a reply, its own chat for a write to another),
 * then the items; how many were new.
 */
const enqueueReply = `
CREATE FUNCTION aw_enqueue_reply(p_lock BIGINT, p_chat TEXT, p_key TEXT, p_items JSONB[], p_now BIGINT,
    p_fence_chat TEXT, p_fence_of TEXT, p_holder TEXT, p_epoch BIGINT)
RETURNS INTEGER
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(p_lock);
  PERFORM aw_assert_fence(p_fence_chat, p_fence_of, p_holder, p_epoch);
  RETURN aw_enqueue(p_chat, p_key, p_items, p_now);
END $$;`;

/** recordRun (store/sqlite/runs.ts keeps the same rules): the run's row, the history pruned to the newest p_keep, the day's sums. */
const recordRun = `
CREATE FUNCTION aw_record_run(p_chat TEXT, p_agent TEXT, p_label TEXT, p_started_at BIGINT, p_duration_ms BIGINT,
    p_outcome TEXT, p_error TEXT, p_input_tokens BIGINT, p_output_tokens BIGINT, p_cost_usd DOUBLE PRECISION,
    p_keep INTEGER, p_day TEXT)
RETURNS VOID
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  INSERT INTO runs (chat, agent, label, started_at, duration_ms, outcome, error, input_tokens, output_tokens, cost_usd)
  VALUES (p_chat, p_agent, p_label, p_started_at, p_duration_ms, p_outcome, p_error, p_input_tokens,
      p_output_tokens, p_cost_usd);
  DELETE FROM runs WHERE id <= (SELECT max(id) FROM runs) - p_keep;
  INSERT INTO usage_daily AS d (day, label, runs, runs_with_usage, input_tokens, output_tokens, cost_usd, runs_with_cost)
  VALUES (p_day, p_label, 1,
      CASE WHEN p_input_tokens IS NOT NULL OR p_output_tokens IS NOT NULL THEN 1 ELSE 0 END,
      coalesce(p_input_tokens, 0), coalesce(p_output_tokens, 0), coalesce(p_cost_usd, 0),
      CASE WHEN p_cost_usd IS NOT NULL THEN 1 ELSE 0 END)
  ON CONFLICT (day, label) DO UPDATE SET runs = d.runs + 1,
    runs_with_usage = d.runs_with_usage + excluded.runs_with_usage,
    input_tokens = d.input_tokens + excluded.input_tokens,
    output_tokens = d.output_tokens + excluded.output_tokens,
    cost_usd = d.cost_usd + excluded.cost_usd,
    runs_with_cost = d.runs_with_cost + excluded.runs_with_cost;
END $$;`;

/**
 * recover: under the locks of the chats whose messages fail (keys sorted by their names, as inTx
 * takes them), every fence checked, the interrupted messages waiting again (the try counted), and
 * each failing chat's messages failed with its one notice. `p_fail_chat` and `p_fail_id` are
 * parallel: a message id and its chat; a chat's notice goes under its first id.
 */
const recover = `
CREATE FUNCTION aw_recover(p_locks BIGINT[], p_fence_chats TEXT[], p_fence_holders TEXT[], p_fence_epochs BIGINT[],
    p_requeue BIGINT[], p_fail_chat TEXT[], p_fail_id BIGINT[], p_notice JSONB[], p_now BIGINT)
RETURNS VOID
LANGUAGE plpgsql VOLATILE AS $$
DECLARE k BIGINT; i INTEGER; c TEXT; cur RECORD;
BEGIN
  FOREACH k IN ARRAY p_locks LOOP PERFORM pg_advisory_xact_lock(k); END LOOP;
  -- aw_assert_fence's check, with the refused fence's place in DETAIL ('fence', from 1).
  FOR i IN 1 .. coalesce(cardinality(p_fence_chats), 0) LOOP
    SELECT holder, epoch INTO cur FROM chat_leases WHERE chat = p_fence_chats[i] FOR SHARE;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'the lease of a chat moved' USING ERRCODE = '${FENCE_REFUSED}',
        DETAIL = json_build_object('fence', i)::text;
    END IF;
    IF cur.holder IS DISTINCT FROM p_fence_holders[i] OR cur.epoch <> p_fence_epochs[i] THEN
      RAISE EXCEPTION 'the lease of a chat moved' USING ERRCODE = '${FENCE_REFUSED}',
        DETAIL = json_build_object('holder', cur.holder, 'epoch', cur.epoch, 'fence', i)::text;
    END IF;
  END LOOP;
  IF cardinality(p_requeue) > 0 THEN
    UPDATE inbox SET status = 'pending' WHERE id = ANY(p_requeue) AND status = 'running';
  END IF;
  -- The chats in the order the plan names them, as the TypeScript loop wrote their notices.
  FOR c IN SELECT t.chat FROM unnest(p_fail_chat) WITH ORDINALITY AS t(chat, n) GROUP BY t.chat ORDER BY min(t.n) LOOP
    UPDATE inbox SET status = 'failed', finished_at = p_now, note = 'crashed_twice'
    WHERE id IN (SELECT t.id FROM unnest(p_fail_chat, p_fail_id) AS t(chat, id) WHERE t.chat = c);
    PERFORM aw_enqueue(c, 'crash:' || (SELECT t.id FROM unnest(p_fail_chat, p_fail_id) WITH ORDINALITY
        AS t(chat, id, n) WHERE t.chat = c ORDER BY t.n LIMIT 1), p_notice, p_now);
  END LOOP;
END $$;`;

/**
 * The chat lock's key of postgres/pool.ts lockKey in SQL (the first 8 bytes of SHA-256 of the name,
 * a signed big-endian integer), for a function that learns its chat by reading (an interaction's).
 */
const chatLockKey = `
CREATE FUNCTION aw_chat_lock_key(p_chat TEXT) RETURNS BIGINT
LANGUAGE sql IMMUTABLE AS $$
  SELECT ('x' || substr(encode(sha256(convert_to('chat:' || p_chat, 'UTF8')), 'hex'), 1, 16))::bit(64)::bigint
$$;`;

/**
 * An answer to a question, or a message swallowed while a run waits (postgres/interactions.ts):
 * under the chat's lock, the question still pending (locked FOR UPDATE; `closed` if not, and nothing
 * is written), the message's row as a finished command (`duplicate` if its id was seen), the
 * question answered and the reply written. No question id: the message swallowed (`recorded`).
 */
const inboundAnswer = `
CREATE FUNCTION aw_inbound_answer(p_lock BIGINT, p_id BIGINT, p_channel TEXT, p_message_id TEXT, p_chat TEXT,
    p_sender_id TEXT, p_sender_name TEXT, p_text TEXT, p_media JSONB, p_context TEXT, p_is_group BOOLEAN,
    p_sent_at BIGINT, p_now BIGINT, p_note TEXT, p_remote_media JSONB, p_answer TEXT, p_key TEXT, p_items JSONB[])
RETURNS TEXT
LANGUAGE plpgsql VOLATILE AS $$
DECLARE v_status TEXT; v_id BIGINT;
BEGIN
  PERFORM pg_advisory_xact_lock(p_lock);
  IF p_id IS NOT NULL THEN
    SELECT status INTO v_status FROM interactions WHERE id = p_id FOR UPDATE;
    IF v_status IS DISTINCT FROM 'pending' THEN RETURN 'closed'; END IF;
  END IF;
  INSERT INTO inbox (channel, message_id, chat, kind, sender_id, sender_name, text, media, context,
      is_group, sent_at, received_at, status, finished_at, note, remote_media)
  VALUES (p_channel, p_message_id, p_chat, 'command', p_sender_id, p_sender_name, p_text, p_media, p_context,
      p_is_group, p_sent_at, p_now, 'done', p_now, p_note, p_remote_media)
  ON CONFLICT (channel, message_id) DO NOTHING
  RETURNING id INTO v_id;
  IF v_id IS NULL THEN RETURN 'duplicate'; END IF;
  IF p_id IS NOT NULL THEN
    UPDATE interactions SET status = 'answered', answer = p_answer, closed_at = p_now
    WHERE id = p_id AND status = 'pending';
  END IF;
  IF p_key IS NOT NULL THEN PERFORM aw_enqueue(p_chat, p_key, p_items, p_now); END IF;
  RETURN CASE WHEN p_id IS NULL THEN 'recorded' ELSE 'answered' END;
END $$;`;

/**
 * A question shown (`p_status` NULL) or closed (`p_status` the closing status): its chat's lock
 * taken before its row (the order every interaction write keeps), the row changed only while
 * pending, and the notice written; whether it was pending.
 */
const interactionNotice = `
CREATE FUNCTION aw_interaction_notice(p_id BIGINT, p_now BIGINT, p_expires BIGINT, p_status TEXT, p_key TEXT,
    p_items JSONB[])
RETURNS BOOLEAN
LANGUAGE plpgsql VOLATILE AS $$
DECLARE v_chat TEXT;
BEGIN
  SELECT chat INTO v_chat FROM interactions WHERE id = p_id;
  IF v_chat IS NULL THEN RETURN false; END IF;
  PERFORM pg_advisory_xact_lock(aw_chat_lock_key(v_chat));
  IF p_status IS NULL THEN
    UPDATE interactions SET shown_at = p_now, expires_at = p_expires WHERE id = p_id AND status = 'pending';
  ELSE
    UPDATE interactions SET status = p_status, answer = NULL, closed_at = p_now WHERE id = p_id AND status = 'pending';
  END IF;
  IF NOT FOUND THEN RETURN false; END IF;
  IF p_key IS NOT NULL THEN PERFORM aw_enqueue(v_chat, p_key, p_items, p_now); END IF;
  RETURN true;
END $$;`;

/** The third step of the functions module. */
export const chatWrites = [
  keepSession,
  requeue,
  enqueueReply,
  recordRun,
  recover,
  chatLockKey,
  inboundAnswer,
  interactionNotice,
].join('\n');

// The PostgreSQL engine's tables, per module, the same modules and meanings as the SQLite engine's
// (store/*.ts). Times are milliseconds since the epoch in BIGINT (read back as numbers, postgres/
// pool.ts); JSON values are JSONB; flags are BOOLEAN. Ids are identities: a chat's messages get
// theirs under the chat's lock (postgres/queue.ts), so a chat's ids are in arrival order.
import { functions } from './functions.js';
import type { PgMigration } from './migrate.js';

const inbox: PgMigration = {
  module: 'inbox',
  steps: [
    `CREATE TABLE inbox (
      id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      channel TEXT NOT NULL,
      message_id TEXT NOT NULL,
      chat TEXT NOT NULL,
      kind TEXT NOT NULL DEFAULT 'message' CHECK (kind IN ('message', 'command')),
      sender_id TEXT NOT NULL,
      sender_name TEXT,
      text TEXT NOT NULL,
      media JSONB NOT NULL DEFAULT '[]',
      remote_media JSONB,
      context TEXT,
      is_group BOOLEAN NOT NULL DEFAULT false,
      sent_at BIGINT NOT NULL,
      received_at BIGINT NOT NULL,
      status TEXT NOT NULL DEFAULT 'pending'
        CHECK (status IN ('pending', 'running', 'done', 'failed', 'dropped')),
      tries INTEGER NOT NULL DEFAULT 0,
      started_at BIGINT,
      finished_at BIGINT,
      note TEXT,
      owner TEXT,
      lease_epoch BIGINT,
      UNIQUE (channel, message_id)
    );
    CREATE INDEX inbox_chat_status ON inbox (chat, status, id);
    CREATE INDEX inbox_unfinished ON inbox (status, chat) WHERE status IN ('pending', 'running');`,
  ],
};

const outbox: PgMigration = {
  module: 'outbox',
  steps: [
    `CREATE TABLE outbox (
      id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      key TEXT NOT NULL,
      idx INTEGER NOT NULL,
      chat TEXT NOT NULL,
      item JSONB NOT NULL,
      status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed')),
      tries INTEGER NOT NULL DEFAULT 0,
      created_at BIGINT NOT NULL,
      sent_at BIGINT,
      provider_id TEXT,
      error TEXT,
      attempt_at BIGINT,
      next_at BIGINT,
      expired_at BIGINT,
      UNIQUE (key, idx)
    );
    CREATE INDEX outbox_pending ON outbox (chat, id) WHERE status = 'pending';`,
  ],
};

const sessions: PgMigration = {
  module: 'sessions',
  steps: [
    `CREATE TABLE sessions (
      scope TEXT NOT NULL,
      agent TEXT NOT NULL,
      session_id TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      last_used_at BIGINT NOT NULL,
      confirmed BOOLEAN NOT NULL DEFAULT true,
      PRIMARY KEY (scope, agent)
    );
    CREATE TABLE chat_settings (
      chat TEXT PRIMARY KEY,
      agent TEXT,
      thinking TEXT,
      "verbose" BOOLEAN NOT NULL DEFAULT false,
      updated_at BIGINT NOT NULL
    );
    CREATE TABLE session_generations (
      scope TEXT PRIMARY KEY,
      generation INTEGER NOT NULL
    );`,
  ],
};

const runs: PgMigration = {
  module: 'runs',
  steps: [
    `CREATE TABLE runs (
      id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      chat TEXT NOT NULL,
      agent TEXT NOT NULL,
      label TEXT NOT NULL,
      started_at BIGINT NOT NULL,
      duration_ms BIGINT NOT NULL,
      outcome TEXT NOT NULL,
      error TEXT,
      input_tokens BIGINT,
      output_tokens BIGINT,
      cost_usd DOUBLE PRECISION
    );
    CREATE INDEX runs_started ON runs (started_at);
    CREATE TABLE usage_daily (
      day TEXT NOT NULL,
      label TEXT NOT NULL,
      runs INTEGER NOT NULL,
      runs_with_usage INTEGER NOT NULL,
      input_tokens BIGINT NOT NULL,
      output_tokens BIGINT NOT NULL,
      cost_usd DOUBLE PRECISION NOT NULL,
      runs_with_cost INTEGER NOT NULL,
      PRIMARY KEY (day, label)
    );`,
  ],
};

const tasks: PgMigration = {
  module: 'agent_tasks',
  steps: [
    `CREATE TABLE agent_tasks (
      id TEXT PRIMARY KEY,
      chat TEXT NOT NULL,
      call_key TEXT NOT NULL UNIQUE,
      prompt TEXT NOT NULL,
      cron TEXT,
      every TEXT,
      at TEXT,
      time_zone TEXT,
      created_at BIGINT NOT NULL,
      paused_at BIGINT
    );
    CREATE INDEX agent_tasks_chat ON agent_tasks (chat);`,
  ],
};

const interactions: PgMigration = {
  module: 'interactions',
  steps: [
    `CREATE TABLE interactions (
      id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      chat TEXT NOT NULL,
      type TEXT NOT NULL CHECK (type IN ('approval', 'question')),
      run_key TEXT NOT NULL,
      asker TEXT NOT NULL,
      tool_kind TEXT,
      text TEXT NOT NULL,
      choices JSONB,
      created_at BIGINT NOT NULL,
      shown_at BIGINT,
      expires_at BIGINT,
      status TEXT NOT NULL DEFAULT 'pending'
        CHECK (status IN ('pending', 'answered', 'expired', 'cancelled', 'restarted')),
      answer TEXT,
      closed_at BIGINT
    );
    CREATE INDEX interactions_open ON interactions (status, chat, id);
    CREATE TABLE chat_allowances (
      chat TEXT NOT NULL,
      tool_kind TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      PRIMARY KEY (chat, tool_kind)
    );`,
  ],
};

const schedules: PgMigration = {
  module: 'schedules',
  steps: [
    `CREATE TABLE schedule_state (
      job TEXT PRIMARY KEY,
      fingerprint TEXT NOT NULL,
      last_run_at BIGINT,
      next_run_at BIGINT,
      last_outcome TEXT,
      last_detail TEXT,
      failure_streak INTEGER NOT NULL DEFAULT 0,
      attempts INTEGER NOT NULL DEFAULT 0,
      running_since BIGINT,
      done BOOLEAN NOT NULL DEFAULT false,
      updated_at BIGINT NOT NULL
    )`,
  ],
};

const channelState: PgMigration = {
  module: 'channel_state',
  steps: [
    `CREATE TABLE channel_state (
      channel TEXT NOT NULL,
      key TEXT NOT NULL,
      value TEXT NOT NULL,
      updated_at BIGINT NOT NULL,
      PRIMARY KEY (channel, key)
    );
    CREATE TABLE channel_seen (
      channel TEXT NOT NULL,
      key TEXT NOT NULL,
      at BIGINT NOT NULL,
      PRIMARY KEY (channel, key)
    );
    CREATE INDEX channel_seen_at ON channel_seen (at);`,
  ],
};

const mediaHost: PgMigration = {
  module: 'media_host',
  steps: [
    `CREATE TABLE media_host (
      name TEXT PRIMARY KEY,
      mime_type TEXT NOT NULL,
      size_bytes BIGINT NOT NULL,
      expires_at BIGINT NOT NULL
    )`,
  ],
};

const alerts: PgMigration = {
  module: 'alerts',
  steps: [
    `CREATE TABLE alert_incidents (
      channel TEXT PRIMARY KEY,
      kind TEXT NOT NULL,
      since BIGINT NOT NULL,
      alerted_at BIGINT
    )`,
  ],
};

const twilio: PgMigration = {
  module: 'twilio',
  steps: [
    `CREATE TABLE twilio_delivery (
      sid TEXT PRIMARY KEY,
      chat_id TEXT NOT NULL,
      status TEXT NOT NULL,
      error_code TEXT,
      updated_at BIGINT NOT NULL
    );
    CREATE TABLE twilio_blocked (chat_id TEXT PRIMARY KEY, code TEXT NOT NULL, at BIGINT NOT NULL);
    CREATE TABLE twilio_refusals (sender TEXT PRIMARY KEY, at BIGINT NOT NULL);
    CREATE TABLE twilio_poll_seen (sid TEXT PRIMARY KEY, seen_at BIGINT NOT NULL);
    CREATE TABLE twilio_state (key TEXT PRIMARY KEY, value TEXT NOT NULL);`,
  ],
};

const events: PgMigration = {
  module: 'outside_events',
  steps: [
    `CREATE TABLE outside_events (
      id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      source_key TEXT NOT NULL UNIQUE,
      source TEXT NOT NULL,
      chat TEXT NOT NULL,
      prompt TEXT NOT NULL,
      due_at BIGINT NOT NULL,
      order_name TEXT NOT NULL,
      options TEXT NOT NULL,
      state TEXT NOT NULL DEFAULT 'waiting',
      attempts INTEGER NOT NULL DEFAULT 0,
      outcome TEXT,
      created_at BIGINT NOT NULL,
      finished_at BIGINT
    );
    CREATE INDEX outside_events_due ON outside_events (state, due_at, order_name COLLATE "C", id);
    CREATE INDEX outside_events_chat ON outside_events (chat, state, due_at, order_name COLLATE "C", id);`,
  ],
};

const whatsapp: PgMigration = {
  module: 'whatsapp',
  steps: [
    `CREATE TABLE wa_creds (
      id INTEGER PRIMARY KEY CHECK (id = 1),
      data TEXT NOT NULL,
      logged_out_at BIGINT,
      updated_at BIGINT NOT NULL
    );
    CREATE TABLE wa_keys (
      type TEXT NOT NULL,
      id TEXT NOT NULL,
      data TEXT NOT NULL,
      PRIMARY KEY (type, id)
    );
    CREATE TABLE wa_sent (
      id TEXT PRIMARY KEY,
      jid TEXT NOT NULL,
      message BYTEA NOT NULL,
      at BIGINT NOT NULL
    );
    CREATE INDEX wa_sent_at ON wa_sent (at);
    CREATE TABLE wa_chats (
      chat_id TEXT PRIMARY KEY,
      jid TEXT NOT NULL,
      updated_at BIGINT NOT NULL
    );`,
  ],
};

const ownership: PgMigration = {
  module: 'ownership',
  steps: [
    `CREATE TABLE processes (
      id TEXT PRIMARY KEY,
      host TEXT NOT NULL,
      pid INTEGER NOT NULL,
      role TEXT NOT NULL,
      started_at BIGINT NOT NULL,
      last_seen BIGINT NOT NULL,
      fingerprint TEXT NOT NULL,
      schema_version INTEGER NOT NULL
    );
    CREATE TABLE chat_leases (
      chat TEXT PRIMARY KEY,
      holder TEXT,
      epoch BIGINT NOT NULL,
      expires_at BIGINT NOT NULL
    );
    CREATE TABLE leader_leases (
      name TEXT PRIMARY KEY,
      holder TEXT,
      epoch BIGINT NOT NULL,
      expires_at BIGINT NOT NULL
    );
    CREATE TABLE notifications (
      id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      topic TEXT NOT NULL,
      key TEXT NOT NULL,
      origin TEXT NOT NULL,
      at BIGINT NOT NULL
    );
    CREATE INDEX notifications_at ON notifications (at);`,
    // Who last gave a chat's lease back: the chat waits a moment for that process (queue/lease-affinity.ts).
    'ALTER TABLE chat_leases ADD COLUMN last_holder TEXT;',
  ],
};

export const PG_MIGRATIONS: readonly PgMigration[] = [
  inbox,
  outbox,
  sessions,
  runs,
  channelState,
  tasks,
  interactions,
  schedules,
  mediaHost,
  alerts,
  twilio,
  events,
  whatsapp,
  ownership,
  // Last: the functions use every module's tables.
  functions,
];

/** The schema this code knows, as one number (every module's steps): the process registry shows it. */
export const PG_SCHEMA_VERSION = PG_MIGRATIONS.reduce((n, m) => n + m.steps.length, 0);

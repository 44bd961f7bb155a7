// What the store says about the relay's work: waiting messages per chat, sessions, the last runs and
// recent failures. Used live by the relay's `status` method and offline by `agentwire status` when
// no relay runs. Read-only; a table that does not exist yet (an older or fresh store) reads as empty.
// The inbox, outbox and sessions tables belong to the core; these are the only queries ops makes
// on them, kept here in one place.
import type { Db } from '../../store/db.js';
import { pendingByChat } from '../../store/inbox.js';
import { countUnsent, expiredStats } from '../../store/outbox.js';
import { dailyUsage, recentRuns } from '../../store/runs.js';
import type { StatusSources } from './snapshot.js';

export type StoreSources = Required<
  Pick<StatusSources, 'lanes' | 'sessions' | 'runs' | 'failures' | 'usage'>
> &
  Pick<StatusSources, 'replies'>;

const LIMIT = 20;

/** Human words for the reasons the core notes on a failed or dropped message. */
const NOTES: Record<string, string> = {
  queue_full: 'too many messages were waiting in this chat; the message was refused',
  crashed_twice: 'the relay stopped twice while answering this message; it was given up',
  relay_error: 'the relay hit an internal error while answering',
  agent_unavailable: 'the agent CLI could not be started',
  no_session: 'there was no session to continue',
  timeout: 'the agent ran past its time limit and was stopped',
  auth: 'the agent CLI is not logged in',
  rate_limit: "the agent's provider is rate-limiting",
  overloaded: "the agent's provider is overloaded",
  not_installed: 'the agent CLI is not installed',
  session_not_found: 'the agent lost the session',
  exit: 'the agent CLI exited with an error',
  unparseable: "the agent's output could not be read",
};

export function hasTable(db: Db, name: string): boolean {
  return Boolean(db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name));
}

/** A store written by an older version, read without migrating, may lack a newer column. */
function hasColumn(db: Db, table: string, column: string): boolean {
  return (db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).some(
    (c) => c.name === column,
  );
}

function readReplies(db: Db): StatusSources['replies'] {
  if (!hasTable(db, 'outbox')) return undefined;
  const unsent = countUnsent(db);
  if (!hasColumn(db, 'outbox', 'expired_at')) return { unsent, expired: 0 };
  const e = expiredStats(db);
  return { unsent, expired: e.count, ...(e.lastAt !== undefined && { lastExpiredAt: e.lastAt }) };
}

export function readStore(db: Db): StoreSources {
  const inbox = hasTable(db, 'inbox');
  const replies = readReplies(db);
  const lanes = inbox ? Object.entries(pendingByChat(db)).map(([chat, pending]) => ({ chat, pending })) : [];
  const sessions = hasTable(db, 'sessions')
    ? (
        db
          .prepare('SELECT scope, agent, last_used_at FROM sessions ORDER BY last_used_at DESC LIMIT 100')
          .all() as {
          scope: string;
          agent: string;
          last_used_at: number;
        }[]
      ).map((r) => ({ chat: r.scope, agent: r.agent, lastUsedAt: r.last_used_at }))
    : [];
  const runs = hasTable(db, 'runs') ? recentRuns(db, LIMIT) : [];
  return {
    lanes,
    sessions,
    ...(replies && { replies }),
    runs: runs.map((r) => ({
      at: r.startedAt,
      chat: r.chat,
      agent: r.agent,
      durationMs: r.durationMs,
      outcome: r.outcome,
      label: r.label,
      ...(r.usage && { usage: r.usage }),
    })),
    usage: hasTable(db, 'usage_daily') ? dailyUsage(db) : [],
    failures: [
      ...(inbox ? inboxFailures(db) : []),
      ...(hasTable(db, 'outbox') ? outboxFailures(db) : []),
      // User runs that failed are already the inbox rows above; system runs have no inbox row.
      ...runs
        .filter((r) => r.outcome !== 'ok' && r.label !== 'user')
        .map((r) => ({
          at: r.startedAt + r.durationMs,
          chat: r.chat,
          kind: `${r.label}:${r.outcome}`,
          message: r.error ?? NOTES[r.outcome] ?? 'the run failed',
        })),
    ]
      .sort((a, b) => b.at - a.at)
      .slice(0, LIMIT),
  };
}

function inboxFailures(db: Db) {
  // One run answers a batch of rows, finished together: one failure per batch.
  const rows = db
    .prepare(
      `SELECT chat, note, max(coalesce(finished_at, received_at)) AS at, count(*) AS n FROM inbox
       WHERE kind = 'message' AND status IN ('failed', 'dropped')
       GROUP BY chat, note, coalesce(finished_at, received_at)
       ORDER BY at DESC LIMIT ?`,
    )
    .all(LIMIT) as { chat: string; note: string | null; at: number; n: number }[];
  return rows.map((r) => {
    const kind = r.note ?? 'failed';
    const what = NOTES[kind] ?? 'the message was not answered';
    return { at: r.at, chat: r.chat, kind, message: r.n > 1 ? `${what} (${r.n} messages)` : what };
  });
}

function outboxFailures(db: Db) {
  const expiry = hasColumn(db, 'outbox', 'expired_at') ? 'expired_at' : 'NULL';
  const rows = db
    .prepare(
      `SELECT chat, error, coalesce(${expiry}, created_at) AS at, ${expiry} AS expired FROM outbox
       WHERE status = 'failed' ORDER BY id DESC LIMIT ?`,
    )
    .all(LIMIT) as { chat: string; error: string | null; at: number; expired: number | null }[];
  return rows.map((r) => ({
    at: r.at,
    chat: r.chat,
    kind: r.expired === null ? 'delivery' : 'delivery_expired',
    message:
      r.expired === null
        ? `a reply could not be delivered: ${r.error ?? 'unknown error'}`
        : `a reply was given up after failing for the whole retry time (delivery.retryHours): ${r.error ?? 'unknown error'}`,
  }));
}

// A short history of agent runs for `status` and the console's "last runs": when, which chat, which
// agent, how long, and how it ended. No prompt or reply text is kept. The table is pruned to the
// newest KEEP rows on every insert, so it never grows without bound.
import type { AgentResult } from '../agents/types.js';
import { cleanText } from '../ops/status/snapshot.js';
import { type Db, type Migration, prepared, transaction } from './db.js';

export const runsMigration: Migration = {
  module: 'runs',
  steps: [
    `CREATE TABLE runs (
      id INTEGER PRIMARY KEY,
      chat TEXT NOT NULL,
      agent TEXT NOT NULL,
      label TEXT NOT NULL,
      started_at INTEGER NOT NULL,
      duration_ms INTEGER NOT NULL,
      outcome TEXT NOT NULL,
      error TEXT
    );
    CREATE INDEX runs_started ON runs (started_at);`,
  ],
};

const KEEP = 500;

export interface RunRecord {
  chat: string;
  agent: string;
  /** `user`, `heartbeat`, or a schedule id. */
  label: string;
  startedAt: number;
  durationMs: number;
  /** `ok` or the agent error kind. */
  outcome: string;
  /** The short error sentence, scrubbed; never message text. */
  error?: string;
}

/** The record of a finished run, from its AgentResult. */
export function runRecord(
  chat: string,
  agent: string,
  label: string,
  result: AgentResult,
  finishedAt: number,
): RunRecord {
  return {
    chat,
    agent,
    label,
    startedAt: finishedAt - result.durationMs,
    durationMs: result.durationMs,
    outcome: result.type === 'ok' ? 'ok' : result.kind,
    ...(result.type === 'error' && { error: cleanText(result.message) }),
  };
}

/** Never throws: the history must not break a run (a missing table or a full disk is returned). */
export function recordRun(db: Db, r: RunRecord): { ok: true } | { ok: false; error: string } {
  try {
    // One commit for the row and the pruning, not two: this runs after every agent run.
    transaction(db, () => {
      prepared(
        db,
        `INSERT INTO runs (chat, agent, label, started_at, duration_ms, outcome, error) VALUES (?, ?, ?, ?, ?, ?, ?)`,
      ).run(r.chat, r.agent, r.label, r.startedAt, Math.round(r.durationMs), r.outcome, r.error ?? null);
      prepared(db, `DELETE FROM runs WHERE id <= (SELECT max(id) FROM runs) - ?`).run(KEEP);
    });
    return { ok: true };
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}

export function recentRuns(db: Db, limit = 20): RunRecord[] {
  const rows = prepared(
    db,
    `SELECT chat, agent, label, started_at, duration_ms, outcome, error FROM runs ORDER BY started_at DESC, id DESC LIMIT ?`,
  ).all(limit) as {
    chat: string;
    agent: string;
    label: string;
    started_at: number;
    duration_ms: number;
    outcome: string;
    error: string | null;
  }[];
  return rows.map((r) => ({
    chat: r.chat,
    agent: r.agent,
    label: r.label,
    startedAt: r.started_at,
    durationMs: r.duration_ms,
    outcome: r.outcome,
    ...(r.error !== null && { error: r.error }),
  }));
}

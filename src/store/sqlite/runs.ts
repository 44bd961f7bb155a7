// A short history of agent runs for `status` and the console's "last runs": when, which chat, which
// agent, how long, and how it ended. No prompt or reply text is kept. The table is pruned to the
// newest KEEP rows on every insert, so it never grows without bound.
import type { Usage } from '../../agents/types.js';
import { type DailyUsage, localDay, type RunRecord } from '../contract/runs.js';
import { type Db, type Migration, prepared, transaction } from './db.js';

export { type DailyUsage, localDay, type RunRecord, runRecord } from '../contract/runs.js';

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
    // Usage and cost per run where the CLI reports them (what a check-in costs), and their sums per
    // day and label, kept apart from the runs table because that one is pruned to KEEP rows.
    `ALTER TABLE runs ADD COLUMN input_tokens INTEGER;
    ALTER TABLE runs ADD COLUMN output_tokens INTEGER;
    ALTER TABLE runs ADD COLUMN cost_usd REAL;
    CREATE TABLE usage_daily (
      day TEXT NOT NULL,
      label TEXT NOT NULL,
      runs INTEGER NOT NULL,
      runs_with_usage INTEGER NOT NULL,
      input_tokens INTEGER NOT NULL,
      output_tokens INTEGER NOT NULL,
      cost_usd REAL NOT NULL,
      runs_with_cost INTEGER NOT NULL,
      PRIMARY KEY (day, label)
    );`,
  ],
};

const KEEP = 500;

/** Never throws: the history must not break a run (a missing table or a full disk is returned). */
export function recordRun(db: Db, r: RunRecord): { ok: true } | { ok: false; error: string } {
  try {
    // One commit for the row and the pruning, not two: this runs after every agent run.
    transaction(db, () => {
      const u = r.usage;
      prepared(
        db,
        `INSERT INTO runs (chat, agent, label, started_at, duration_ms, outcome, error, input_tokens, output_tokens, cost_usd)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        r.chat,
        r.agent,
        r.label,
        r.startedAt,
        Math.round(r.durationMs),
        r.outcome,
        r.error ?? null,
        u?.inputTokens ?? null,
        u?.outputTokens ?? null,
        u?.costUsd ?? null,
      );
      prepared(db, `DELETE FROM runs WHERE id <= (SELECT max(id) FROM runs) - ?`).run(KEEP);
      const tokens = u?.inputTokens !== undefined || u?.outputTokens !== undefined;
      prepared(
        db,
        `INSERT INTO usage_daily (day, label, runs, runs_with_usage, input_tokens, output_tokens, cost_usd, runs_with_cost)
         VALUES (?, ?, 1, ?, ?, ?, ?, ?)
         ON CONFLICT (day, label) DO UPDATE SET runs = runs + 1,
           runs_with_usage = runs_with_usage + excluded.runs_with_usage,
           input_tokens = input_tokens + excluded.input_tokens,
           output_tokens = output_tokens + excluded.output_tokens,
           cost_usd = cost_usd + excluded.cost_usd,
           runs_with_cost = runs_with_cost + excluded.runs_with_cost`,
      ).run(
        r.day ?? localDay(r.startedAt + r.durationMs),
        r.label,
        tokens ? 1 : 0,
        u?.inputTokens ?? 0,
        u?.outputTokens ?? 0,
        u?.costUsd ?? 0,
        u?.costUsd !== undefined ? 1 : 0,
      );
    });
    return { ok: true };
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}

export function recentRuns(db: Db, limit = 20): RunRecord[] {
  // `status` reads a store read-only, unmigrated: one written before the usage columns has none.
  const cols = hasUsageColumns(db)
    ? 'input_tokens, output_tokens, cost_usd'
    : 'NULL AS input_tokens, NULL AS output_tokens, NULL AS cost_usd';
  const rows = db
    .prepare(
      `SELECT chat, agent, label, started_at, duration_ms, outcome, error, ${cols}
     FROM runs ORDER BY started_at DESC, id DESC LIMIT ?`,
    )
    .all(limit) as {
    chat: string;
    agent: string;
    label: string;
    started_at: number;
    duration_ms: number;
    outcome: string;
    error: string | null;
    input_tokens: number | null;
    output_tokens: number | null;
    cost_usd: number | null;
  }[];
  return rows.map((r) => ({
    ...usageOf(r),
    chat: r.chat,
    agent: r.agent,
    label: r.label,
    startedAt: r.started_at,
    durationMs: r.duration_ms,
    outcome: r.outcome,
    ...(r.error !== null && { error: r.error }),
  }));
}

function usageOf(r: { input_tokens: number | null; output_tokens: number | null; cost_usd: number | null }): {
  usage?: Usage;
} {
  const usage: Usage = {
    ...(r.input_tokens !== null && { inputTokens: r.input_tokens }),
    ...(r.output_tokens !== null && { outputTokens: r.output_tokens }),
    ...(r.cost_usd !== null && { costUsd: r.cost_usd }),
  };
  return Object.keys(usage).length > 0 ? { usage } : {};
}

/** The daily sums of the newest `days` days that had runs, newest first. */
export function dailyUsage(db: Db, days = 7): DailyUsage[] {
  const rows = prepared(
    db,
    `SELECT * FROM usage_daily WHERE day IN (SELECT DISTINCT day FROM usage_daily ORDER BY day DESC LIMIT ?)
     ORDER BY day DESC, label`,
  ).all(days) as {
    day: string;
    label: string;
    runs: number;
    runs_with_usage: number;
    input_tokens: number;
    output_tokens: number;
    cost_usd: number;
    runs_with_cost: number;
  }[];
  return rows.map((r) => ({
    day: r.day,
    label: r.label,
    runs: r.runs,
    runsWithUsage: r.runs_with_usage,
    inputTokens: r.input_tokens,
    outputTokens: r.output_tokens,
    costUsd: r.cost_usd,
    runsWithCost: r.runs_with_cost,
  }));
}

function hasUsageColumns(db: Db): boolean {
  const cols = db.prepare('PRAGMA table_info(runs)').all() as { name: string }[];
  return cols.some((c) => c.name === 'input_tokens');
}

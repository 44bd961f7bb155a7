// Run history on PostgreSQL (the rules of store/sqlite/runs.ts): a row per run, pruned to the newest KEEP,
// and the daily usage sums, in the caller's transaction; and how those rows read back (status).
import { type DailyUsage, localDay, type RunRecord } from '../contract/runs.js';
import { escapeOpt, unescapeNul } from './nul.js';
import type { Queryable } from './pool.js';

const KEEP = 500;

export async function recordRun(q: Queryable, r: RunRecord): Promise<void> {
  const u = r.usage;
  await q.query(
    `INSERT INTO runs (chat, agent, label, started_at, duration_ms, outcome, error, input_tokens, output_tokens, cost_usd)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [
      r.chat,
      r.agent,
      r.label,
      r.startedAt,
      Math.round(r.durationMs),
      r.outcome,
      escapeOpt(r.error),
      u?.inputTokens ?? null,
      u?.outputTokens ?? null,
      u?.costUsd ?? null,
    ],
  );
  await q.query('DELETE FROM runs WHERE id <= (SELECT max(id) FROM runs) - $1', [KEEP]);
  const tokens = u?.inputTokens !== undefined || u?.outputTokens !== undefined;
  await q.query(
    `INSERT INTO usage_daily AS d (day, label, runs, runs_with_usage, input_tokens, output_tokens, cost_usd, runs_with_cost)
     VALUES ($1, $2, 1, $3, $4, $5, $6, $7)
     ON CONFLICT (day, label) DO UPDATE SET runs = d.runs + 1,
       runs_with_usage = d.runs_with_usage + excluded.runs_with_usage,
       input_tokens = d.input_tokens + excluded.input_tokens,
       output_tokens = d.output_tokens + excluded.output_tokens,
       cost_usd = d.cost_usd + excluded.cost_usd,
       runs_with_cost = d.runs_with_cost + excluded.runs_with_cost`,
    [
      r.day ?? localDay(r.startedAt + r.durationMs),
      r.label,
      tokens ? 1 : 0,
      u?.inputTokens ?? 0,
      u?.outputTokens ?? 0,
      u?.costUsd ?? 0,
      u?.costUsd !== undefined ? 1 : 0,
    ],
  );
}

/** A runs row as read, with the columns of RUN_COLUMNS. */
export interface RunRow {
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
}

export const RUN_COLUMNS =
  'chat, agent, label, started_at, duration_ms, outcome, error, input_tokens, output_tokens, cost_usd';

export function toRunRecord(x: RunRow): RunRecord {
  const usage = {
    ...(x.input_tokens !== null && { inputTokens: x.input_tokens }),
    ...(x.output_tokens !== null && { outputTokens: x.output_tokens }),
    ...(x.cost_usd !== null && { costUsd: x.cost_usd }),
  };
  return {
    chat: x.chat,
    agent: x.agent,
    label: x.label,
    startedAt: x.started_at,
    durationMs: x.duration_ms,
    outcome: x.outcome,
    ...(x.error !== null && { error: unescapeNul(x.error) }),
    ...(Object.keys(usage).length > 0 && { usage }),
  };
}

/** A usage_daily row: its sums come back as numbers or, for the wide ones, as numeric strings. */
export const toDailyUsage = (x: Record<string, number | string>): DailyUsage => ({
  day: String(x.day),
  label: String(x.label),
  runs: Number(x.runs),
  runsWithUsage: Number(x.runs_with_usage),
  inputTokens: Number(x.input_tokens),
  outputTokens: Number(x.output_tokens),
  costUsd: Number(x.cost_usd),
  runsWithCost: Number(x.runs_with_cost),
});

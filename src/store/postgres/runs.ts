// Run history on PostgreSQL (the rules of store/sqlite/runs.ts): a row per run, pruned to the newest KEEP,
// and the daily usage sums, in the caller's transaction.
import { localDay, type RunRecord } from '../contract/runs.js';
import { escapeOpt } from './nul.js';
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

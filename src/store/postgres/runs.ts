// How run history rows read back on PostgreSQL (status). Recording a run is a server-side function
// (functions-writes.ts), with the rules of store/sqlite/runs.ts.
import type { DailyUsage, RunRecord } from '../contract/runs.js';
import { unescapeNul } from './nul.js';

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

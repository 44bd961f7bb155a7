// A run's history record and the day its usage is summed under, whatever the engine. Pure.
import type { AgentResult, Usage } from '../../agents/types.js';
import { dateFormat } from '../../core/date-format.js';
import { cleanText } from '../../log.js';

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
  /** Tokens and cost as the CLI reported them (absent when it reports none). */
  usage?: Usage;
  /** The local day (YYYY-MM-DD, in the relay's zone) the run's usage is summed under. */
  day?: string;
}

/** The record of a finished run, from its AgentResult. */
export function runRecord(
  chat: string,
  agent: string,
  label: string,
  result: AgentResult,
  finishedAt: number,
  timeZone?: string,
): RunRecord {
  const usage = result.type === 'ok' ? result.usage : undefined;
  return {
    chat,
    agent,
    label,
    startedAt: finishedAt - result.durationMs,
    durationMs: result.durationMs,
    outcome: result.type === 'ok' ? 'ok' : result.kind,
    ...(result.type === 'error' && { error: cleanText(result.message) }),
    ...(usage && { usage }),
    day: localDay(finishedAt, timeZone),
  };
}

/** "2026-11-26": the calendar day of `ms` in `timeZone` (the machine's when unset). */
export function localDay(ms: number, timeZone?: string): string {
  return dateFormat('en-CA', {
    ...(timeZone && { timeZone }),
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(new Date(ms));
}

/** Daily sums by label (`user`, `heartbeat`, `schedule:<id>`): what check-ins cost, day by day. */
export interface DailyUsage {
  day: string;
  label: string;
  runs: number;
  /** Runs whose CLI reported tokens; the token sums cover only these. */
  runsWithUsage: number;
  inputTokens: number;
  outputTokens: number;
  /** Summed over `runsWithCost` runs (claude, pi and opencode report a cost; codex and gemini do not). */
  costUsd: number;
  runsWithCost: number;
}

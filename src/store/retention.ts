// The retention port's types, whatever the engine (the SQLite engine: store/sqlite/retention.ts).

export interface RetentionResult {
  /** Finished messages whose text, media and names were cleared. */
  scrubbed: number;
  /** Sent or failed reply chunks deleted. */
  replies: number;
  /** Finished messages deleted outright (dedupe record expired). */
  deleted: number;
  /** Channel ids recorded as seen, deleted with the same expiry. */
  seen: number;
  /** Closed questions and approvals (the agent's text and the answer) deleted. */
  questions: number;
}

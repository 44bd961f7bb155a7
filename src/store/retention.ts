// The retention port's types and rule, whatever the engine (SQLite: store/sqlite/retention.ts,
// PostgreSQL: store/postgres/retention.ts).

/**
 * The dedupe record of a finished message is kept at least this long, by every engine: it is what
 * stops a message redelivered days later (a Twilio retry, a WhatsApp resync) from running again.
 */
export const KEEP_IDS_DAYS = 90;

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

// The status-read port's types, whatever the engine (the SQLite engine: store/sqlite/status-read.ts).
import type { JobState } from '../core/job-state.js';
import type { DailyUsage, RunRecord } from './contract/runs.js';
import type { ProcessInfo } from './ownership.js';
import type { AgentTask } from './tasks.js';
import type { StoredCreds } from './whatsapp-auth.js';

export interface StatusFacts {
  /** Waiting messages per chat; empty without an inbox. */
  pending: Record<string, number>;
  sessions: { chat: string; agent: string; lastUsedAt: number }[];
  /** Undefined without an outbox. */
  replies?: { unsent: number; expired: number; lastExpiredAt?: number };
  runs: RunRecord[];
  usage: DailyUsage[];
  /** Failed or dropped messages, one row per batch finished together. */
  inboxFailures: { chat: string; note: string | null; at: number; n: number }[];
  /** Replies given up; `expired` set when they ran out of retry time. */
  outboxFailures: { chat: string; error: string | null; at: number; expired: number | null }[];
  jobStates: Map<string, JobState>;
  /** Tasks agents scheduled (docs/tools.md); empty without the table. */
  tasks: AgentTask[];
  /** Questions and approvals runs wait on (never their text); empty without the table. */
  waitingAnswers: { chat: string; type: 'approval' | 'question'; createdAt: number; shownAt?: number }[];
  /** WhatsApp's stored creds; undefined when none (or no WhatsApp table). */
  whatsappCreds?: StoredCreds;
  /** The processes registered on the store (relays, `agentwire chat`), oldest first; absent where the engine keeps none. */
  processes?: ProcessInfo[];
  /**
   * The leader leases held (the scheduler, a channel's one consumer `channel:<name>`): `holder` is a
   * process id of `processes`; `expiresAt` on the clock the engine times leases by.
   */
  leases?: { name: string; holder: string; expiresAt: number }[];
}

export interface StatusReader {
  read(): Promise<StatusFacts>;
}

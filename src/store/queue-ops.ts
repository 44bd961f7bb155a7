// The store as the queue sees it: operations named for what they mean. The queue never sees a
// connection, a statement or a transaction. The SQLite implementation is store/sqlite/queue-sqlite.ts; the
// deferred test engine (store/deferred.ts) wraps it. The contract every engine keeps (also in
// docs/architecture.md, "The store contract"):
// - Each operation is one serialisable transaction: it sees the store as if no other ran at once,
//   and commits whole or not at all. Its Promise settles after the commit; it may settle at any
//   later turn of the event loop, so nothing in memory may count on it being settled at once.
// - Ids of one chat come in arrival order: a message accepted later has a larger inbox id.
// - A callback given to an operation (`decide`, `choose`, `owns`, `notice`) is pure: it reads what it
//   is handed and returns a decision. It may run more than once (a retried transaction) or not at
//   all (a duplicate); effects in memory are applied by the caller after the Promise resolved.
// - Time is the caller's: every operation that writes a time takes `now`.
// - Failures are the store's own (store/errors.ts): a write resolves with a `Written` value whose
//   refusal is a StoreFailure (`{ ok: false, reason, retryable, message }`); a read rejects with a
//   StoreError carrying the same. No engine error, code or handle leaves the store.

import type { CommandEffect, CommandPlan } from '../core/command-handler.js';
import type { MessageRef } from '../core/message-ref.js';
import type { TaskLike } from '../core/task-line.js';
import type { ChatKey, InboundMedia, InboundMessage, OutboundItem, OutboxItem } from '../core/types.js';
import type { InboxRow } from './contract/inbox.js';
import type { MessageRefRow, OutboxRow } from './contract/outbox.js';
import type { RunRecord } from './contract/runs.js';
import type { ChatSettings, SessionRow, SessionScope } from './contract/sessions.js';
import type { Written } from './errors.js';
import type { Interaction } from './interactions.js';
import type { Fence } from './ownership.js';

export type { StoreFailure, StoreFailureReason, Written } from './errors.js';
/** An agent kind as the store keeps it (the agent layer defines the names). */
export type AgentName = NonNullable<ChatSettings['agent']>;

export type AcceptOutcome =
  | {
      type: 'stored';
      id: number;
      /** The chat's lease as the store saw it with the row (engines that read it in the same call). */
      lease?: LeaseSeen;
    }
  | { type: 'duplicate' }
  /** The chat's queue was full: kept as `dropped` (the dedupe record); `noticed`: the notice was written. */
  | { type: 'dropped'; id: number; noticed: boolean };

/**
 * A chat's lease: held live by `holder` (this process or another) until `until`, or free, with the
 * process that last held it and when that one was last seen alive (undefined: no longer registered).
 */
export type LeaseSeen =
  | { type: 'held'; holder: string; until: number }
  | { type: 'free'; last?: { holder: string; lastSeen: number | undefined } };

export interface AcceptOptions {
  now: number;
  /** At most this many messages wait per chat; one more is dropped. */
  maxPending: number;
  /** The one-time overflow notice, written with a dropped message when given. */
  dropNotice?: readonly OutboundItem[];
}

/** What a chat command reads, in the transaction that records it. */
export interface CommandSnapshot {
  settings: ChatSettings;
  /** The session of the chat's current agent in `scope`. */
  session: SessionRow | undefined;
  waiting: number;
  /** The tasks agents scheduled in the chat (store/tasks.ts). */
  tasks: readonly TaskLike[];
  /** The questions and approvals the chat's runs wait on, oldest first (store/interactions.ts). */
  pending: readonly Interaction[];
  /** The tool kinds allowed for the chat. */
  allowances: readonly string[];
  /**
   * The chat's messages a run has under way, in whichever process runs them (a /stop typed beside
   * the holder answers from this, not from its own empty run slot). Absent: the engine does not say;
   * the caller knows only its own run.
   */
  running?: readonly { startedAt: number; senderId: string }[];
}

export interface CommandOptions {
  now: number;
  scope: SessionScope;
  defaultAgent: AgentName;
  /** Set: the command carries the first prompt of a fresh session (`/new text`), stored as a message. */
  prompt?: string;
  /** Why the dedupe row of a command is done: the command's name. */
  note: string;
  /** The reply as outbox items (the channel's limit). */
  items: (reply: string) => OutboundItem[];
}

export type CommandOutcome = { type: 'duplicate' } | { type: 'applied'; id: number; plan: CommandPlan };

/** A session to keep after a run (see queue/execute.ts keptSession). */
export interface KeptSession {
  scope: SessionScope;
  agent: AgentName;
  id: string;
  /** The scope's generation the run started in: kept only if no /new bumped it since. */
  generation: number;
  confirmed: boolean;
  /** False: the idle clock stays where it was (heartbeats). */
  touch: boolean;
}

export interface StoredSession {
  row: SessionRow | undefined;
  generation: number;
}

export interface FinishedRun {
  chat: ChatKey;
  ids: readonly number[];
  now: number;
  status: 'done' | 'failed';
  note?: string;
  /** The answer: written under `key`, unless that key was written before (a run redone after a crash). */
  reply?: { key: string; items: readonly OutboundItem[] };
  session?: KeptSession;
  /** The chat's lease the run holds: refused, nothing written, once the lease moved. */
  fence?: Fence;
}

export interface RecoveryWrite {
  now: number;
  /** Interrupted runs queued again. */
  requeue: readonly number[];
  /** Interrupted runs given up, by chat, each chat told with `notice`. */
  fail: ReadonlyMap<ChatKey, readonly number[]>;
  notice: readonly OutboundItem[];
  /** The leases of the chats taken over: refused, nothing written, if any moved meanwhile. */
  fences?: readonly Fence[];
}

export interface QueueStore {
  // Inbound.
  /** Dedupe and store a message (or drop it past the chat's cap), in one transaction. */
  acceptInbound(msg: InboundMessage, opts: AcceptOptions): Promise<Written<AcceptOutcome>>;
  /**
   * Dedupe and apply a chat command: `decide` sees the chat's state and returns the reply and
   * effects; the durable effects and the reply are written with the dedupe row. `decide` is pure:
   * it may be called more than once (a retried transaction) and is not called for a duplicate. The
   * in-memory effects of the plan are the caller's, once this resolved `applied`.
   */
  acceptCommand(
    msg: InboundMessage,
    opts: CommandOptions,
    decide: (state: CommandSnapshot) => CommandPlan,
  ): Promise<Written<CommandOutcome>>;

  // Runs.
  /**
   * The chat's next run: `choose` (pure, the busy policy) sees up to `limit` waiting messages in
   * arrival order and says how many to take; those become `running` (a try counted), owned by
   * `fence` (its holder and epoch) when given, and refused when that lease moved.
   */
  claimNextRun<P extends { count: number }>(
    chat: ChatKey,
    limit: number,
    now: number,
    choose: (waiting: readonly InboxRow[]) => P,
    fence?: Fence,
  ): Promise<Written<{ rows: InboxRow[]; plan: P } | undefined>>;
  /** A message's remote attachments were downloaded: they join its files, the notes its text. */
  saveFetchedMedia(id: number, media: readonly InboundMedia[], text: string): Promise<Written<void>>;
  /** The run's answer, its messages' final state and its session, in one transaction. */
  finishRun(run: FinishedRun): Promise<Written<void>>;
  /**
   * The run's messages wait again (an interrupt, our own shutdown): the try is taken back, since
   * neither is a crash; `session` is kept. Fenced like finishRun.
   */
  requeueRun(
    ids: readonly number[],
    now: number,
    session?: KeptSession,
    fence?: Fence,
  ): Promise<Written<void>>;
  /**
   * Items outside a run's answer (progress, notices, sends): a `key` written before adds nothing.
   * `fence`: written by a run (a tool's send, progress), refused once the chat's lease moved.
   */
  enqueueReply(
    chat: ChatKey,
    key: string,
    items: readonly OutboxItem[],
    now: number,
    fence?: Fence,
  ): Promise<Written<number>>;
  /**
   * Items a run writes to another chat than its own (send_message's `to`): fenced by the writing
   * run's lease of its own chat (`writer`), since it holds none of the target's; refused once that
   * moved. A `key` written before adds nothing.
   */
  enqueueForChat(
    chat: ChatKey,
    key: string,
    items: readonly OutboxItem[],
    now: number,
    writer?: Fence,
  ): Promise<Written<number>>;
  /** The first outbox row written under `key`: agentwire's id of a message a tool sent. */
  outboxIdOf(key: string): Promise<number | undefined>;
  /**
   * The message agentwire's id names (an outbox row that is a message, or a received message), or
   * undefined: the tools check its chat, delivery turns it into the provider's id.
   */
  messageRef(ref: MessageRef): Promise<MessageRefRow | undefined>;
  /** One stored message, by id (who a run answers: the tools' chat_info). */
  message(id: number): Promise<InboxRow | undefined>;
  /** One row of run history (never the text). */
  recordRun(record: RunRecord): Promise<Written<void>>;
  /** What a previous process left: unfinished messages, oldest first (of one chat when given). */
  unfinished(chat?: ChatKey): Promise<InboxRow[]>;
  recover(plan: RecoveryWrite): Promise<Written<void>>;

  // Sessions and chat settings.
  chatSettings(chat: ChatKey): Promise<ChatSettings>;
  /** The scope's session of `agent`, if any, and the scope's generation (bumped by each /new). */
  session(scope: SessionScope, agent: AgentName): Promise<StoredSession>;
  keepSession(session: KeptSession, now: number, fence?: Fence): Promise<Written<void>>;
  forgetSession(scope: SessionScope, agent: AgentName): Promise<Written<void>>;

  // Counts for the run slots and status.
  countPending(chat: ChatKey): Promise<number>;
  pendingByChat(): Promise<Record<string, number>>;
  countUnsent(): Promise<number>;

  // Delivery.
  chatsWithUnsent(): Promise<ChatKey[]>;
  nextUnsent(chat: ChatKey): Promise<OutboxRow | undefined>;
  /**
   * Whether a later unsent row of the chat, written under a key starting with `keyPrefix`, edits the
   * same message as `row` (an edit): then `row` is stale and need not be sent (a status line).
   */
  newerEditPending(row: OutboxRow, keyPrefix: string): Promise<boolean>;
  /** Provider ids of the chat's chunks sent at or after `since` (a resend check). */
  sentProviderIds(chat: ChatKey, since: number): Promise<string[]>;
  /** A send of the chunk begins now (the first time only). */
  markChunkAttempt(id: number, now: number): Promise<Written<void>>;
  /** `fence`: the chat's lease of the process that sent it; refused (not marked) once it moved. */
  markChunkSent(id: number, now: number, providerId?: string, fence?: Fence): Promise<Written<void>>;
  /** A failed try, retried at `nextAt`; resolves with the tries so far. */
  markChunkRetry(id: number, error: string, nextAt: number): Promise<Written<number>>;
  /** Given up after the retry time: the chunk fails and the chat gets `notice` unless one waits already. */
  expireChunk(row: OutboxRow, error: string, now: number, notice: string): Promise<Written<boolean>>;
  /** Failed for good; `notice` (for an attachment) is written with it. */
  failChunk(row: OutboxRow, error: string, now: number, notice?: string): Promise<Written<void>>;
}

export type { CommandEffect, CommandPlan };

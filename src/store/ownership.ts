// Who owns what when several processes share one store (a relay and `agentwire chat` on one home;
// later several relays on one database): a registry of the processes, a lease per chat with an
// epoch that every write of a run carries (a fencing token), leader leases for the jobs only one
// process may do, and notifications between processes. Engine-free: the SQLite implementation is
// store/sqlite/ownership-sqlite.ts; another engine implements the same port.
//
// Why an epoch and not just a holder: a process paused (SIGSTOP, a swapped-out laptop, a long GC)
// past its lease wakes up believing it still owns the chat. Its successor took the lease with a
// higher epoch, and the store refuses every run-side write that carries the old one, so the late
// process can neither finish, requeue nor send what its successor now answers.
import type { ChatKey } from '../core/types.js';

/** A process using the store, as the registry keeps it. */
export interface ProcessInfo {
  id: string;
  host: string;
  pid: number;
  /** What it is (`relay`, `chat`, `send`): for `status` and for the log. */
  role: string;
  startedAt: number;
  /** Its last renewal; a row not seen for long belongs to a process that is gone. */
  lastSeen: number;
  /** A hash of its configuration with every secret left out: two processes on different configs show. */
  fingerprint: string;
  /** The schema the process's code knows (the sum of every module's migration steps). */
  schemaVersion: number;
}

/** A `processes` row as both engines store it (the same columns and types). */
export interface ProcessRow {
  id: string;
  host: string;
  pid: number;
  role: string;
  started_at: number;
  last_seen: number;
  fingerprint: string;
  schema_version: number;
}

export const toProcess = (r: ProcessRow): ProcessInfo => ({
  id: r.id,
  host: r.host,
  pid: r.pid,
  role: r.role,
  startedAt: r.started_at,
  lastSeen: r.last_seen,
  fingerprint: r.fingerprint,
  schemaVersion: r.schema_version,
});

export type NewProcess = Omit<ProcessInfo, 'id' | 'lastSeen' | 'schemaVersion'>;

/** The token of one holding of a chat's lease: writes of a run carry it, and a moved lease refuses them. */
export interface Fence {
  chat: ChatKey;
  holder: string;
  epoch: number;
}

export type LeaseOutcome =
  | { type: 'granted'; fence: Fence }
  /** Another process holds it and its lease runs until `expiresAt`. */
  | { type: 'held'; holder: string; expiresAt: number };

/**
 * Jobs that one process of a home does, whoever runs beside it. A channel's own job (WhatsApp's
 * socket, Telegram's long poll, Twilio's poll mode) is `channel:<name>`, named by its plug-in: the
 * store knows no channel by name.
 */
export type LeaderName =
  | 'scheduler'
  | 'events'
  | 'retention'
  | 'media_sweep'
  | 'link_alert'
  | `channel:${string}`;

/**
 * What processes tell each other: `key` is the chat (or empty). `chat_ready`: a message waits for the
 * chat's lease holder; `chat_control`: a /stop or /new for the process running the chat (its key is
 * the control as JSON, queue/chat-control.ts); `interaction_answered`: an answer recorded by a process
 * that does not wait on it (its key is the interaction's id); `tasks_changed`: a task was added,
 * changed or removed; `outbox`: a reply waits for the process that delivers the chat; `events_stored`:
 * an event from outside was stored, for the process that runs them (leading `events`).
 */
export type Topic =
  | 'chat_ready'
  | 'chat_control'
  | 'interaction_answered'
  | 'tasks_changed'
  | 'outbox'
  | 'events_stored';

export interface Notification {
  id: number;
  topic: Topic;
  key: string;
  /** The process that sent it (a process skips its own: it delivered them in-process already). */
  origin: string;
  at: number;
}

/** A chat whose unfinished work nobody holds (its lease is free, expired, or its holder gone). */
export interface OrphanChat {
  chat: ChatKey;
  /** The epoch its lease had (0: never leased). */
  epoch: number;
}

/** The ownership operations; each is one transaction. `now` and lease lengths come from the caller. */
export interface OwnershipStore {
  register(p: NewProcess, now: number): Promise<ProcessInfo>;
  /** Notes the process alive; false when its row is gone (it was reaped as dead). */
  touch(id: string, now: number): Promise<boolean>;
  /** Its chat and leader leases are released and its row removed (a clean stop). */
  deregister(id: string): Promise<void>;
  processes(): Promise<ProcessInfo[]>;
  /**
   * Declares the processes `gone` says are dead (pid no longer alive on this host, or not seen for
   * long): their rows are removed and every lease they held ends now, keeping its epoch.
   */
  reap(now: number, gone: (p: ProcessInfo) => boolean): Promise<ProcessInfo[]>;

  /**
   * Takes or renews the chat's lease for `holder` until `now + ttlMs`. Granted when free, expired,
   * or already this holder's (same epoch, also after it ran out unnoticed); a new holder gets the
   * epoch after the last one, so every earlier holder's fence is refused from then on.
   */
  acquireChat(chat: ChatKey, holder: string, now: number, ttlMs: number): Promise<LeaseOutcome>;
  /** Extends the lease of `fence` only; false when it moved (the holder must stop writing for it). */
  renewChat(fence: Fence, now: number, ttlMs: number): Promise<boolean>;
  /** Gives the lease back (expires now, the epoch kept); nothing when it already moved. */
  releaseChat(fence: Fence): Promise<void>;
  /**
   * The process that last gave the chat's lease back (`releaseChat`), with its registry row's last
   * renewal (undefined when it is no longer registered); undefined when none did yet.
   */
  lastHolder(chat: ChatKey): Promise<{ holder: string; lastSeen: number | undefined } | undefined>;
  /** Chats whose live lease another holder than `holder` has. */
  leasedByOthers(holder: string, now: number): Promise<ChatKey[]>;
  /** Chats with waiting or running messages whose lease nobody live holds. */
  orphans(now: number): Promise<OrphanChat[]>;

  /** Takes or renews a leader lease (`name`, with a scope such as the channel); the same rules as chats. */
  acquireLeader(name: string, holder: string, now: number, ttlMs: number): Promise<LeaseOutcome>;
  releaseLeader(name: string, holder: string): Promise<void>;

  notify(topic: Topic, key: string, origin: string, now: number): Promise<number>;
  /**
   * Rings `ring` soon after another process's notification is committed (and whenever pushes may have
   * been missed, such as after a reconnection): a doorbell, the caller then reads `notifications`.
   * Resolves once pushes flow (or are being retried); to the function that stops the ringing.
   * Optional: an engine without pushes leaves it out, and its readers poll.
   */
  watch?(ring: () => void): Promise<() => void>;
  /** Notifications after `afterId`, oldest first, at most `limit`. */
  notifications(afterId: number, limit: number): Promise<Notification[]>;
  /** The newest notification's id (a new process starts reading after it). */
  lastNotification(): Promise<number>;
  /** Removes notifications older than `before`. */
  pruneNotifications(before: number): Promise<number>;
}

/** The refusal of a run-side write whose fence is no longer the chat's lease. */
export interface FenceRefusal {
  ok: false;
  reason: 'conflict';
  /** Never: the lease moved; the same write would be refused again. */
  retryable: false;
  message: string;
}

/** True for a write refused because its fence is no longer the chat's lease (not a passing conflict). */
export function isFenceRefusal(w: { ok: false; reason: string; retryable: boolean }): boolean {
  return w.reason === 'conflict' && !w.retryable;
}

/** Thrown inside an engine's transaction when a fence no longer holds; becomes a FenceRefusal. */
export class FenceConflict extends Error {
  readonly failure: FenceRefusal;
  constructor(fence: Fence, current: { holder: string | null; epoch: number } | undefined) {
    const now = current ? `epoch ${current.epoch} of ${current.holder ?? 'nobody'}` : 'no lease';
    const message = `conflict: the lease of a chat moved (this write carries epoch ${fence.epoch}, the chat has ${now})`;
    super(message);
    this.name = 'FenceConflict';
    this.failure = { ok: false, reason: 'conflict', retryable: false, message };
  }
}

// The per-chat run slots, in memory: which chat is running what, which chats wait for a slot, and small per-chat
// flags. No I/O; the durable truth (what is waiting) is the inbox, this only orders the work.
import type { ChatKey } from '../core/types.js';

export type AbortReason = 'stop' | 'interrupt' | 'shutdown';

export interface ActiveRun {
  kind: 'user' | 'system';
  label: string;
  /** Inbox rows this run answers (empty for system runs). */
  ids: number[];
  /** Who sent them: a member may /stop only a run of their own messages. */
  senders?: string[];
  startedAt: number;
  controller: AbortController;
  /** Why the run was told to stop; the strongest reason when several came (see `abort`). */
  reason?: AbortReason;
  done: Promise<void>;
}

/**
 * What a stop means for the run's messages: an interrupt folds them into the next run, a shutdown
 * leaves them for the next start, a /stop drops them. A /stop (or a shutdown) that comes after an
 * interrupt, before the run has ended, wins here. That the stopped messages never run again does
 * not hang on it: /stop marks them stopped in the store, in its own transaction, so a run that
 * requeues them for the interrupt (it learned of the /stop too late) finds nothing to requeue.
 */
const STRENGTH: Record<AbortReason, number> = { interrupt: 0, shutdown: 1, stop: 2 };

export class RunSlots {
  private readonly active = new Map<ChatKey, ActiveRun>();
  /** Chats with waiting work and since when, in the order they became ready (a Map keeps it). */
  private readonly ready = new Map<ChatKey, number>();
  /** An active run's chat: since when its work had waited before the run began. */
  private readonly since = new Map<ChatKey, number>();
  private readonly dropNoticeSent = new Set<ChatKey>();

  constructor(
    readonly maxConcurrent: number,
    private readonly now: () => number = Date.now,
  ) {}

  get activeCount(): number {
    return this.active.size;
  }

  get(chat: ChatKey): ActiveRun | undefined {
    return this.active.get(chat);
  }

  runs(): [ChatKey, ActiveRun][] {
    return [...this.active];
  }

  hasSlot(): boolean {
    return this.active.size < this.maxConcurrent;
  }

  markReady(chat: ChatKey): void {
    if (!this.active.has(chat) && !this.ready.has(chat)) this.ready.set(chat, this.now());
  }

  readyCount(): number {
    return this.ready.size;
  }

  isReady(chat: ChatKey): boolean {
    return this.ready.has(chat);
  }

  /** The chats waiting for a slot, longest waiting first. */
  readyList(): { chat: ChatKey; since: number }[] {
    return [...this.ready]
      .filter(([chat]) => !this.active.has(chat))
      .map(([chat, since]) => ({ chat, since }));
  }

  /**
   * Removes a chat from the ready set and returns it: `chat` (the queue's choice, queue/affinity.ts)
   * if it is ready, else the chat that has waited longest.
   */
  takeReady(chat?: ChatKey): ChatKey | undefined {
    const pick = chat !== undefined && this.ready.has(chat) ? chat : this.ready.keys().next().value;
    if (pick === undefined) return undefined;
    const since = this.ready.get(pick) as number;
    this.ready.delete(pick);
    // Never ready while running (markReady skips it); kept as the old loop was, to be safe.
    if (this.active.has(pick)) return this.takeReady();
    this.since.set(pick, since);
    return pick;
  }

  /** Since when the chat's work has waited: while ready, and through the run that took it. */
  waitingSince(chat: ChatKey): number | undefined {
    return this.ready.get(chat) ?? this.since.get(chat);
  }

  begin(chat: ChatKey, run: ActiveRun): void {
    if (this.active.has(chat)) throw new Error('a chat run slot runs one thing at a time');
    if (!this.since.has(chat)) this.since.set(chat, this.ready.get(chat) ?? run.startedAt);
    this.ready.delete(chat);
    this.active.set(chat, run);
  }

  end(chat: ChatKey, run: ActiveRun): void {
    if (this.active.get(chat) !== run) return;
    this.active.delete(chat);
    this.since.delete(chat);
  }

  /** Aborts the chat's run; returns the run that was told to stop, if any. */
  abort(chat: ChatKey, reason: AbortReason): ActiveRun | undefined {
    const run = this.active.get(chat);
    if (!run) return undefined;
    if (!run.reason || STRENGTH[reason] > STRENGTH[run.reason]) run.reason = reason;
    if (!run.controller.signal.aborted) run.controller.abort(reason);
    return run;
  }

  /** The one-time overflow notice: true the first time per overflow episode. */
  claimDropNotice(chat: ChatKey): boolean {
    if (this.dropNoticeSent.has(chat)) return false;
    this.dropNoticeSent.add(chat);
    return true;
  }

  /** Called when the chat's queue is below its cap again, so a later overflow is announced again. */
  clearDropNotice(chat: ChatKey): void {
    this.dropNoticeSent.delete(chat);
  }
}

// In-memory lane state: which chat is running what, which chats wait for a slot, and small per-chat
// flags. No I/O; the durable truth (what is waiting) is the inbox, this only orders the work.
import type { ChatKey } from '../core/types.js';

export type AbortReason = 'stop' | 'interrupt' | 'shutdown';

export interface ActiveRun {
  kind: 'user' | 'system';
  label: string;
  /** Inbox rows this run answers (empty for system runs). */
  ids: number[];
  startedAt: number;
  controller: AbortController;
  /** Why the run was told to stop; the strongest reason when several came (see `abort`). */
  reason?: AbortReason;
  done: Promise<void>;
}

/**
 * What a stop means for the run's messages: an interrupt folds them into the next run, a shutdown
 * leaves them for the next start, a /stop drops them. A /stop (or a shutdown) that comes after an
 * interrupt, before the run has ended, must win, or the stopped messages would run again.
 */
const STRENGTH: Record<AbortReason, number> = { interrupt: 0, shutdown: 1, stop: 2 };

export class Lanes {
  private readonly active = new Map<ChatKey, ActiveRun>();
  /** Chats with waiting work, in the order they became ready (a Set keeps insertion order). */
  private readonly ready = new Set<ChatKey>();
  private readonly dropNoticeSent = new Set<ChatKey>();
  private readonly epochs = new Map<string, number>();

  constructor(readonly maxConcurrent: number) {}

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
    if (!this.active.has(chat)) this.ready.add(chat);
  }

  readyCount(): number {
    return this.ready.size;
  }

  /** The chat that has waited longest for a slot, removed from the ready set. */
  takeReady(): ChatKey | undefined {
    for (const chat of this.ready) {
      this.ready.delete(chat);
      if (!this.active.has(chat)) return chat;
    }
    return undefined;
  }

  begin(chat: ChatKey, run: ActiveRun): void {
    if (this.active.has(chat)) throw new Error('a chat lane runs one thing at a time');
    this.ready.delete(chat);
    this.active.set(chat, run);
  }

  end(chat: ChatKey, run: ActiveRun): void {
    if (this.active.get(chat) === run) this.active.delete(chat);
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

  /** Session reset counter per scope: a run started before a /new must not save its old session. */
  epoch(scope: string): number {
    return this.epochs.get(scope) ?? 0;
  }

  bumpEpoch(scope: string): void {
    this.epochs.set(scope, this.epoch(scope) + 1);
  }
}

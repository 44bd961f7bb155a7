// The bookkeeping of the runs' waits for a person, kept per process like the waits: how long each
// run has waited (a warm turn's timeout leaves it out), when what a chat was shown last changed (a
// number arriving just after may be meant for the question before: core/interaction-route.ts), and
// how many asks a chat has under way.
import type { LastChange } from '../core/interaction-route.js';
import type { ChatKey } from '../core/types.js';

/** A timer the tests can drive: returns a function that cancels it. */
export type Timer = (fn: () => void, ms: number) => () => void;

export const realTimer: Timer = (fn, ms) => {
  const t = setTimeout(fn, ms);
  t.unref();
  return () => clearTimeout(t);
};

/** Per run: the time during which at least one of its questions was open. */
export class WaitClocks {
  private readonly clocks = new Map<string, { open: number; since: number; total: number }>();

  constructor(private readonly now: () => number) {}

  started(runKey: string): void {
    const c = this.clocks.get(runKey) ?? { open: 0, since: 0, total: 0 };
    if (c.open++ === 0) c.since = this.now();
    this.clocks.set(runKey, c);
  }

  ended(runKey: string): void {
    const c = this.clocks.get(runKey);
    if (!c || c.open === 0) return;
    if (--c.open === 0) c.total += this.now() - c.since;
  }

  waitedMs(runKey: string): number {
    const c = this.clocks.get(runKey);
    if (!c) return 0;
    return c.total + (c.open > 0 ? this.now() - c.since : 0);
  }

  /** True while the run that asked goes on (it has asked, and closeRun has not dropped it). */
  has(runKey: string): boolean {
    return this.clocks.has(runKey);
  }

  drop(runKey: string): void {
    this.clocks.delete(runKey);
  }
}

/** Per chat: when a shown question last closed, and whose run asked it. */
export class ScreenChanges {
  private readonly changes = new Map<ChatKey, { at: number; runKey: string }>();

  constructor(private readonly now: () => number) {}

  closed(chat: ChatKey, runKey: string): void {
    this.changes.set(chat, { at: this.now(), runKey });
  }

  /** The last change, while it still matters (within `settleMs`). */
  last(chat: ChatKey, settleMs: number, runGoing: (runKey: string) => boolean): LastChange | undefined {
    const c = this.changes.get(chat);
    if (!c) return undefined;
    const agoMs = this.now() - c.at;
    if (agoMs >= settleMs) {
      this.changes.delete(chat);
      return undefined;
    }
    return { agoMs, runGoing: runGoing(c.runKey) };
  }
}

/** Asks under way per chat, waiting or about to; taken before anything is awaited (asks come in parallel). */
export class ChatPlaces {
  private readonly taken = new Map<ChatKey, number>();

  constructor(private readonly max: number) {}

  /** False when the chat has no place left. */
  take(chat: ChatKey): boolean {
    const n = this.taken.get(chat) ?? 0;
    if (n >= this.max) return false;
    this.taken.set(chat, n + 1);
    return true;
  }

  give(chat: ChatKey): void {
    const n = (this.taken.get(chat) ?? 1) - 1;
    if (n > 0) this.taken.set(chat, n);
    else this.taken.delete(chat);
  }
}

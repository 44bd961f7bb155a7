// "typing…" while the agent works, for a channel whose indicator fades on its own: WhatsApp drops
// `composing` after about 10 s, Telegram a chat action after about 5 s, so it is sent again every
// few seconds until the run ends. Where it sticks until told otherwise (WhatsApp's `composing`
// stays until `paused`: hermes-agent#79008, typing for hours), `stop` is sent at the end, and on
// the channel's stop for every chat still showing it. Failures never matter: they are reported
// to `onError` and the run goes on.

export interface Timers {
  setInterval(fn: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
}

export const realTimers: Timers = {
  setInterval: (fn, ms) => {
    const t = setInterval(fn, ms);
    t.unref?.();
    return t;
  },
  clearInterval: (h) => clearInterval(h as NodeJS.Timeout),
};

export interface TypingSignal {
  /** Shows (or keeps showing) the indicator in a chat. */
  show(chatId: string): Promise<unknown>;
  /** Ends it, for a channel where it does not fade by itself. */
  stop?(chatId: string): Promise<unknown>;
}

export class Typing {
  private readonly active = new Map<string, unknown>();

  constructor(
    private readonly signal: TypingSignal,
    private readonly intervalMs: number,
    private readonly timers: Timers = realTimers,
    private readonly onError: (err: unknown) => void = () => {},
  ) {}

  async set(chatId: string, on: boolean): Promise<void> {
    const existing = this.active.get(chatId);
    if (existing !== undefined) this.timers.clearInterval(existing);
    this.active.delete(chatId);
    if (on) {
      this.active.set(
        chatId,
        this.timers.setInterval(() => void this.safe(() => this.signal.show(chatId)), this.intervalMs),
      );
      await this.safe(() => this.signal.show(chatId));
    } else if (this.signal.stop) {
      const stop = this.signal.stop;
      await this.safe(() => stop.call(this.signal, chatId));
    }
  }

  /** Ends every indicator (on the channel's stop). */
  async clear(): Promise<void> {
    await Promise.all([...this.active.keys()].map((c) => this.set(c, false)));
  }

  isActive(chatId: string): boolean {
    return this.active.has(chatId);
  }

  private async safe(send: () => Promise<unknown>): Promise<void> {
    try {
      await send();
    } catch (err) {
      this.onError(err);
    }
  }
}

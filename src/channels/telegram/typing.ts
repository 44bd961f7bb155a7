// "typing…" while the agent works: Telegram shows a chat action for about 5 seconds, so it is sent
// again every few seconds until the run ends. There is nothing to send to end it; failures never matter.

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

export class Typing {
  private readonly active = new Map<string, unknown>();

  constructor(
    private readonly send: (chatId: string) => Promise<unknown>,
    private readonly intervalMs: number,
    private readonly timers: Timers = realTimers,
    private readonly onError: (err: unknown) => void = () => {},
  ) {}

  async set(chatId: string, on: boolean): Promise<void> {
    const existing = this.active.get(chatId);
    if (existing !== undefined) this.timers.clearInterval(existing);
    this.active.delete(chatId);
    if (!on) return;
    this.active.set(
      chatId,
      this.timers.setInterval(() => void this.safe(chatId), this.intervalMs),
    );
    await this.safe(chatId);
  }

  clear(): void {
    for (const h of this.active.values()) this.timers.clearInterval(h);
    this.active.clear();
  }

  isActive(chatId: string): boolean {
    return this.active.has(chatId);
  }

  private async safe(chatId: string): Promise<void> {
    try {
      await this.send(chatId);
    } catch (err) {
      this.onError(err);
    }
  }
}

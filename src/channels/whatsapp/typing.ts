// "typing…" while a run is active. WhatsApp drops `composing` after ~10 s, so it is refreshed; and it
// sticks until `paused` is sent, so `paused` always follows (hermes-agent#79008: typing for hours).
// Presence failures are never fatal.

export type PresenceSender = (type: 'composing' | 'paused', jid: string) => Promise<void>;

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
    private readonly send: PresenceSender,
    private readonly intervalMs: number,
    private readonly timers: Timers = realTimers,
    private readonly onError: (err: unknown) => void = () => {},
  ) {}

  async set(jid: string, on: boolean): Promise<void> {
    const existing = this.active.get(jid);
    if (existing !== undefined) this.timers.clearInterval(existing);
    this.active.delete(jid);
    if (on) {
      this.active.set(
        jid,
        this.timers.setInterval(() => void this.safe('composing', jid), this.intervalMs),
      );
      await this.safe('composing', jid);
    } else {
      await this.safe('paused', jid);
    }
  }

  /** Ends every indicator (on stop). */
  async clear(): Promise<void> {
    const jids = [...this.active.keys()];
    await Promise.all(jids.map((j) => this.set(j, false)));
  }

  isActive(jid: string): boolean {
    return this.active.has(jid);
  }

  private async safe(type: 'composing' | 'paused', jid: string): Promise<void> {
    try {
      await this.send(type, jid);
    } catch (err) {
      this.onError(err);
    }
  }
}

// Sends go out one at a time with a jittered gap: bursts are what WhatsApp answers with
// rate-overlimit (Baileys#1248: three messages a second) and what ban reports cluster around.

const realSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export interface PacerOptions {
  minGapMs?: number;
  jitterMs?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

export class Pacer {
  private tail: Promise<unknown> = Promise.resolve();
  private last = Number.NEGATIVE_INFINITY;
  private readonly o: Required<PacerOptions>;

  constructor(opts: PacerOptions = {}) {
    this.o = {
      minGapMs: opts.minGapMs ?? 400,
      jitterMs: opts.jitterMs ?? 600,
      now: opts.now ?? Date.now,
      sleep: opts.sleep ?? realSleep,
      random: opts.random ?? Math.random,
    };
  }

  run<T>(fn: () => Promise<T>): Promise<T> {
    const go = this.tail.then(async () => {
      const wait = this.last + this.o.minGapMs + this.o.random() * this.o.jitterMs - this.o.now();
      if (wait > 0) await this.o.sleep(Math.round(wait));
      try {
        return await fn();
      } finally {
        this.last = this.o.now();
      }
    });
    this.tail = go.catch(() => undefined);
    return go;
  }
}

// The notifications other processes sent, as one process reads them (queue/process-owner.ts): read
// after the last id seen, one reader at a time (each moves that id), and a ring that comes while a
// read is under way reads once more after it, so a row committed meanwhile is not left for the poll.
// Each is handed to the handlers of its topic; this process's own were handed over when sent.
import type { Logger } from '../log.js';
import type { Notification, OwnershipStore, Topic } from '../store/ownership.js';

/** `own`: sent by this process (delivered at once, before any poll); `at`: when it was sent. */
export type Handler = (key: string, own: boolean, at: number) => void;

export class OwnerNotices {
  private readonly handlers = new Map<Topic, Set<Handler>>();
  private lastId = 0;
  private reading: Promise<void> | undefined;
  private readAgain = false;

  constructor(
    private readonly port: Pick<OwnershipStore, 'notifications' | 'lastNotification'>,
    private readonly me: string,
    private readonly log: Logger,
    /** Called with each other process's notification before its handlers. */
    private readonly heard: (n: Notification) => void,
    private readonly stopped: () => boolean,
  ) {}

  /** Only what is sent from now on is read. */
  async start(): Promise<void> {
    this.lastId = await this.port.lastNotification();
  }

  on(topic: Topic, handler: Handler): void {
    const set = this.handlers.get(topic) ?? new Set();
    set.add(handler);
    this.handlers.set(topic, set);
  }

  dispatch(topic: Topic, key: string, own: boolean, at: number): void {
    for (const h of this.handlers.get(topic) ?? []) {
      try {
        h(key, own, at);
      } catch (err) {
        this.log.warn({ err, topic }, 'a notification handler failed');
      }
    }
  }

  /** The store rang: another process's notification is committed. */
  ring(): void {
    if (this.stopped()) return;
    this.read().catch((err) =>
      this.log.warn({ err }, 'could not read the notifications; the next poll will'),
    );
  }

  /** One reader at a time; a ring while reading reads once more after. */
  read(): Promise<void> {
    if (this.reading) {
      this.readAgain = true;
      return this.reading;
    }
    this.reading = (async () => {
      do {
        this.readAgain = false;
        await this.poll();
      } while (this.readAgain && !this.stopped());
    })().finally(() => {
      this.reading = undefined;
    });
    return this.reading;
  }

  /** Resolves when a read under way ended (failed or not). */
  async settled(): Promise<void> {
    await this.reading?.catch(() => undefined);
  }

  private async poll(): Promise<void> {
    for (;;) {
      const batch: Notification[] = await this.port.notifications(this.lastId, 100);
      for (const n of batch) {
        this.lastId = n.id;
        if (n.origin === this.me) continue;
        this.heard(n);
        this.dispatch(n.topic, n.key, false, n.at);
      }
      if (batch.length < 100) return;
    }
  }
}

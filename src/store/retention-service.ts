// Retention as a relay service: prunes the store at start and then every few hours, so a relay
// that runs for months keeps about `retention.messageDays` of message text (src/store/retention.ts).
import type { RetentionResult } from './retention.js';

/** What the relay hands the service (structurally its ServiceDeps; typed here so store/ stays below it). */
export interface RetentionDeps {
  config: { retention: { messageDays: number } };
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
  store: { pruneOldMessages(now: number, messageDays: number): Promise<RetentionResult> };
}

const EVERY_MS = 6 * 3_600_000;

export const retentionService = {
  name: 'retention',
  create: (deps: RetentionDeps): { start(): Promise<void>; stop(): Promise<void> } => {
    let timer: NodeJS.Timeout | undefined;
    const run = async () => {
      try {
        const r = await deps.store.pruneOldMessages(Date.now(), deps.config.retention.messageDays);
        if (r.scrubbed + r.replies + r.deleted + r.questions > 0) deps.log.info(r, 'old message text pruned');
      } catch (err) {
        // A busy or full store: the next pass tries again; nothing depends on pruning.
        deps.log.warn({ err }, 'pruning old messages failed');
      }
    };
    return {
      async start() {
        await run();
        timer = setInterval(() => void run(), EVERY_MS);
        timer.unref();
      },
      async stop() {
        clearInterval(timer);
      },
    };
  },
};

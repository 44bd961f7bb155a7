// Retention as a relay service: prunes the store at start and then every few hours, so a relay
// that runs for months keeps about `retention.messageDays` of message text (src/store/retention.ts).
import type { RelayService, ServiceDeps, ServiceFactory } from '../relay.js';
import { pruneStore } from './retention.js';

const EVERY_MS = 6 * 3_600_000;

export const retentionService: ServiceFactory = {
  name: 'retention',
  create: (deps: ServiceDeps): RelayService => {
    let timer: NodeJS.Timeout | undefined;
    const run = () => {
      try {
        const r = pruneStore(deps.db, Date.now(), deps.config.retention.messageDays);
        if (r.scrubbed + r.replies + r.deleted > 0) deps.log.info(r, 'old message text pruned');
      } catch (err) {
        // A busy or full store: the next pass tries again; nothing depends on pruning.
        deps.log.warn({ err }, 'pruning old messages failed');
      }
    };
    return {
      async start() {
        run();
        timer = setInterval(run, EVERY_MS);
        timer.unref();
      },
      async stop() {
        clearInterval(timer);
      },
    };
  },
};

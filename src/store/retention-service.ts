// Retention as a relay service: prunes the store at start and then every few hours, so a relay
// that runs for months keeps about `retention.messageDays` of message text (src/store/retention.ts).
import type { RelayService, ServiceDeps, ServiceFactory } from '../relay.js';
import { forgetSeenBefore } from './channel-state.js';
import { KEEP_IDS_DAYS, pruneStore } from './retention.js';

const EVERY_MS = 6 * 3_600_000;

export const retentionService: ServiceFactory = {
  name: 'retention',
  create: (deps: ServiceDeps): RelayService => {
    let timer: NodeJS.Timeout | undefined;
    const run = () => {
      try {
        const r = pruneStore(deps.db, Date.now(), deps.config.retention.messageDays);
        if (r.scrubbed + r.replies + r.deleted > 0) deps.log.info(r, 'old message text pruned');
        // The ids channel plug-ins recorded as seen (ChannelDeps.state) are dedupe records too: kept
        // as long as the inbox's, then dropped, so they do not grow for the life of the relay.
        const days = Math.max(deps.config.retention.messageDays, KEEP_IDS_DAYS);
        void forgetSeenBefore(deps.db, Date.now() - days * 86_400_000).catch((err: unknown) =>
          deps.log.warn({ err }, 'pruning seen channel ids failed'),
        );
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

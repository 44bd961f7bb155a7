// Staged media copies (stage.ts) as a relay service: a copy lives while an unsent reply names it, so a
// reply stored with an attachment can still be sent after a restart, and goes once the reply is sent,
// has failed for good, or never made it into the outbox (a crash between the check and the write).
import type { Logger } from '../log.js';
import { sweepStaged } from './stage.js';

const EVERY_MS = 10 * 60_000;
/** A copy this young may be between the check and the outbox write right now (in another process too). */
const GRACE_MS = 60 * 60_000;

/** What the relay hands the service (structurally its ServiceDeps; typed here so media/ stays below it). */
export interface StagingDeps {
  paths: { stagedMedia: string };
  log: Logger;
  store: { unsentFiles(): Promise<string[]> };
}

export const stagingService = {
  name: 'staged-media',
  create: (deps: StagingDeps): { start(): Promise<void>; stop(): Promise<void> } => {
    let timer: NodeJS.Timeout | undefined;
    const run = async () => {
      try {
        const keep = new Set(await deps.store.unsentFiles());
        const removed = await sweepStaged(deps.paths.stagedMedia, keep, {
          now: Date.now(),
          graceMs: GRACE_MS,
        });
        if (removed > 0) deps.log.debug({ removed }, 'staged media copies removed');
      } catch (err) {
        // A busy store or an unreadable folder: the next pass tries again; nothing is lost by waiting.
        deps.log.warn({ err }, 'sweeping staged media failed');
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

// The PostgreSQL engine (`openPostgresStore`): the store's ports over one pool per process, for
// several relay processes sharing one database (docs/scale-out.md), chosen by `store.engine:
// 'postgres'` through openStore (store/open.ts).
import { guarded, StoreError } from '../errors.js';
import type { Store } from '../store.js';
import { pgIncidentStore } from './alert-incidents.js';
import { pgChannelStateStore } from './channel-state.js';
import { pgFailure } from './errors.js';
import { pgEventStore } from './events.js';
import { pgInteractionStore } from './interactions.js';
import { pgJobStateStore } from './job-states.js';
import { openListener } from './listen.js';
import { pgMediaLinkStore } from './media-links.js';
import { migrate } from './migrate.js';
import { unescapeNul, unescapeOpt } from './nul.js';
import { pgOwnershipStore } from './ownership.js';
import { openPool, type PoolOptions } from './pool.js';
import { pgQueueOps } from './queue.js';
import { pgPruneOldMessages } from './retention.js';
import { PG_MIGRATIONS, PG_SCHEMA_VERSION } from './schema.js';
import { pgStatusReader } from './status-read.js';
import { pgTaskStore } from './tasks.js';
import { pgTwilioSendStore } from './twilio-sends.js';
import { pgWhatsAppAuthStore, pgWhatsAppChatStore, pgWhatsAppSentStore } from './whatsapp.js';

/**
 * Connects to `url` (a `postgresql://` URL), migrates the database (refusing one a newer agentwire
 * wrote, in one sentence) and returns the store. Rejects with a StoreError when the server cannot be
 * reached or the database refused.
 */
export async function openPostgresStore(url: string, opts: PoolOptions = {}): Promise<Store> {
  const pool = openPool(url, opts);
  try {
    await migrate(pool, PG_MIGRATIONS);
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw err instanceof StoreError ? err : new StoreError(pgFailure(err));
  }
  const g = <T extends object>(port: T): T => guarded(port, pgFailure);
  // Opened on the first `watch` only: a process that never reads notifications keeps no connection for them.
  const listener = openListener(url);
  let closed: Promise<void> | undefined;
  return {
    whatsapp: {
      auth: g(pgWhatsAppAuthStore(pool)),
      sent: g(pgWhatsAppSentStore(pool)),
      chats: g(pgWhatsAppChatStore(pool)),
    },
    twilio: g(pgTwilioSendStore(pool)),
    mediaLinks: g(pgMediaLinkStore(pool)),
    incidents: g(pgIncidentStore(pool)),
    jobStates: g(pgJobStateStore(pool)),
    tasks: g(pgTaskStore(pool)),
    events: g(pgEventStore(pool)),
    interactions: g(pgInteractionStore(pool)),
    status: g(pgStatusReader(pool)),
    ...g({
      unsentFiles: async () =>
        (
          await pool.query<{ path: string | null }>(
            `SELECT item->>'path' AS path FROM outbox
             WHERE status NOT IN ('sent', 'failed') AND item->>'type' = 'file'`,
          )
        ).rows.flatMap((r) => (r.path ? [unescapeNul(r.path)] : [])),
      repliesFor: async (key: string) =>
        (
          await pool.query<{ status: 'pending' | 'sent' | 'failed'; error: string | null }>(
            'SELECT status, error FROM outbox WHERE key = $1 ORDER BY idx',
            [key],
          )
        ).rows.map((r) => ({ status: r.status, error: unescapeOpt(r.error) ?? undefined })),
      pruneOldMessages: (now: number, messageDays: number) => pgPruneOldMessages(pool, now, messageDays),
      // Once: a second close waits for the first instead of failing on an ended pool.
      close: () => {
        closed ??= listener.close().then(() => pool.end());
        return closed;
      },
    }),
    queue: pgQueueOps(pool),
    ownership: g(pgOwnershipStore(pool, PG_SCHEMA_VERSION, listener)),
    channelState: (channel: string) => g(pgChannelStateStore(pool, channel)),
  };
}

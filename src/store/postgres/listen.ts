// Notifications pushed by the database (LISTEN/NOTIFY): a doorbell, not the mailbox. The
// notifications table stays the one record (ids in commit order, read after the last id seen); a
// NOTIFY sent by the same statement that inserts a row only says "read now", so a reader learns of
// another process's notification at its commit instead of at its next poll. One dedicated connection
// per process (LISTEN belongs to a session, so it cannot share the pool's recycled connections).
// When that connection drops, it is opened again with a growing pause and LISTEN is said again;
// every (re)connection rings the bell once, since what was committed meanwhile was not pushed, and
// the caller's slow poll covers the time the connection is down.
import pg from 'pg';

/** The channel every agentwire process of one database listens on. */
export const NOTIFY_CHANNEL = 'agentwire_notifications';

const FIRST_PAUSE_MS = 100;
const LAST_PAUSE_MS = 5_000;

export interface Listener {
  /** Calls `ring` after every notification committed (and after every reconnection); the stop function. */
  watch(ring: () => void): Promise<() => void>;
  /** Closes the connection; no more rings, no more reconnections. */
  close(): Promise<void>;
}

export function openListener(url: string): Listener {
  const rings = new Set<() => void>();
  let client: pg.Client | undefined;
  let connecting: Promise<void> | undefined;
  let closed = false;
  let pause = FIRST_PAUSE_MS;
  let retry: NodeJS.Timeout | undefined;

  const ringAll = () => {
    for (const r of rings) r();
  };

  const connect = async (): Promise<void> => {
    const c = new pg.Client({ connectionString: url, application_name: 'agentwire-listen' });
    // A dropped connection is reported here and by `end`; without a listener Node would end the process.
    c.on('error', () => undefined);
    c.on('notification', (n) => {
      if (n.channel === NOTIFY_CHANNEL) ringAll();
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${NOTIFY_CHANNEL}`);
    } catch (err) {
      await c.end().catch(() => undefined);
      throw err;
    }
    if (closed) {
      await c.end().catch(() => undefined);
      return;
    }
    c.on('end', () => {
      if (client !== c) return;
      client = undefined;
      later();
    });
    client = c;
    pause = FIRST_PAUSE_MS;
    ringAll();
  };

  const attempt = () => {
    connecting ??= connect()
      .catch(() => later())
      .finally(() => {
        connecting = undefined;
      });
    return connecting;
  };

  function later(): void {
    if (closed || rings.size === 0 || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      void attempt();
    }, pause);
    retry.unref();
    pause = Math.min(LAST_PAUSE_MS, pause * 2);
  }

  return {
    async watch(ring) {
      rings.add(ring);
      if (!client && !retry) await attempt();
      return () => {
        rings.delete(ring);
      };
    },
    async close() {
      closed = true;
      rings.clear();
      if (retry) clearTimeout(retry);
      await connecting;
      const c = client;
      client = undefined;
      await c?.end().catch(() => undefined);
    },
  };
}

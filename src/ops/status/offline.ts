// `agentwire status` while no relay runs: what the config and the state folder say. Channels show
// as stopped (WhatsApp with whether it is linked); the store is opened read-only, never created or
// migrated here.
import { existsSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import type { Paths } from '../../config/paths.js';
import type { Config } from '../../config/schema.js';
import type { Db } from '../../store/db.js';
import { linkStateFromStore } from '../doctor/link-state.js';
import type { LockState } from '../doctor/relay-lock.js';
import { gather } from './gather.js';
import { withAllChannels } from './live.js';
import { buildSnapshot, type StatusSnapshot } from './snapshot.js';

export function offlineStatus(paths: Paths, config: Config, now: number, lock: LockState): StatusSnapshot {
  return withStore(paths.db, (db) => {
    const link = config.whatsapp.enabled ? linkStateFromStore(paths) : 'unknown';
    return buildSnapshot({
      ...gather(db, config, now),
      now,
      source: 'store',
      relay: { running: false, ...(lock.type === 'stale' && { staleLock: true }) },
      channels: withAllChannels([], config).map((c) =>
        c.name === 'whatsapp' && link !== 'unknown' ? { ...c, linked: link === 'linked' } : c,
      ),
      maxConcurrentRuns: config.queue.maxConcurrentRuns,
    });
  });
}

/** Runs `fn` with the store opened read-only, or with none when it does not exist or cannot be read. */
export function withStore<T>(file: string, fn: (db: Db | undefined) => T): T {
  let db: Db | undefined;
  if (existsSync(file)) {
    try {
      db = new DatabaseSync(file, { readOnly: true });
    } catch {
      db = undefined;
    }
  }
  try {
    return fn(db);
  } finally {
    db?.close();
  }
}

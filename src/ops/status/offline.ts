// `agentwire status` while no relay runs: what the config and the state folder say. Channels show
// as stopped (WhatsApp with whether it is linked), next runs come from the same listing rules the
// scheduler applies, and the store is opened read-only (never created or migrated here).
import { existsSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import type { ChannelState } from '../../channels/types.js';
import type { Paths } from '../../config/paths.js';
import type { Config } from '../../config/schema.js';
import { buildListing } from '../../heartbeat/listing.js';
import { loadJobState } from '../../heartbeat/state.js';
import type { Db } from '../../store/db.js';
import { linkStateFromStore } from '../doctor/link-state.js';
import type { LockState } from '../doctor/relay-lock.js';
import { buildSnapshot, type StatusSnapshot } from './snapshot.js';
import { hasTable, readStore } from './store-reader.js';

export function offlineStatus(paths: Paths, config: Config, now: number, lock: LockState): StatusSnapshot {
  const db = openReadOnly(paths.db);
  try {
    const stored = db ? readStore(db) : { lanes: [], sessions: [], runs: [], failures: [] };
    const load = (job: string) => (db && hasTable(db, 'schedule_state') ? loadJobState(db, job) : undefined);
    const listing = buildListing(config, load, now);
    const stopped: ChannelState = { type: 'stopped' };
    const link = config.whatsapp.enabled ? linkStateFromStore(paths) : undefined;
    const hb = listing.heartbeat;
    return buildSnapshot({
      now,
      source: 'store',
      relay: { running: false, ...(lock.type === 'held' && !lock.alive && { pid: lock.pid }) },
      channels: [
        {
          name: 'whatsapp',
          state: config.whatsapp.enabled ? stopped : { type: 'disabled' },
          ...(link !== undefined && link !== 'unknown' && { linked: link === 'linked' }),
        },
        { name: 'twilio', state: config.twilio.enabled ? stopped : { type: 'disabled' } },
      ],
      lanes: stored.lanes,
      maxConcurrentRuns: config.queue.maxConcurrentRuns,
      sessions: stored.sessions,
      ...(hb.enabled && { heartbeat: { target: hb.target, nextAt: hb.nextAt } }),
      schedules: listing.schedules.map((s) => ({ id: s.id, target: s.target, nextAt: s.nextAt })),
      runs: stored.runs,
      failures: stored.failures,
    });
  } finally {
    db?.close();
  }
}

function openReadOnly(file: string): Db | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return new DatabaseSync(file, { readOnly: true });
  } catch {
    return undefined;
  }
}

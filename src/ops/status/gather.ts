// The parts of a status every source shares: what the store holds (waiting messages, sessions, runs,
// failures) and the heartbeat's and schedules' next runs, computed from the config and the stored
// job state by the scheduler's own planning rules (heartbeat/listing.ts), so they agree with it.
import type { Config } from '../../config/schema.js';
import { buildListing } from '../../heartbeat/listing.js';
import { loadJobState } from '../../heartbeat/state.js';
import { storedDefaultTarget } from '../../heartbeat/target.js';
import type { Db } from '../../store/db.js';
import type { StatusSources } from './snapshot.js';
import { hasTable, readStore, type StoreSources } from './store-reader.js';

export type SharedSources = StoreSources & Pick<StatusSources, 'heartbeat' | 'heartbeatOff' | 'schedules'>;

export function gather(db: Db | undefined, config: Config, now: number): SharedSources {
  const stored = db ? readStore(db) : { lanes: [], sessions: [], runs: [], failures: [], usage: [] };
  const jobs = db !== undefined && hasTable(db, 'schedule_state');
  const listing = buildListing(
    config,
    (job) => (jobs && db ? loadJobState(db, job) : undefined),
    now,
    () => storedDefaultTarget(config, db),
  );
  const hb = listing.heartbeat;
  return {
    ...stored,
    ...(hb.enabled && {
      heartbeat: {
        target: hb.target,
        nextAt: hb.nextAt,
        ...(hb.waitingFor && { waitingFor: hb.waitingFor }),
      },
    }),
    ...(!hb.enabled && hb.reason && { heartbeatOff: hb.reason }),
    schedules: listing.schedules.map((s) => ({
      id: s.id,
      target: s.target,
      nextAt: s.nextAt,
      ...((s.state === 'done' || s.state === 'given_up' || s.state === 'never') && { state: s.state }),
    })),
  };
}

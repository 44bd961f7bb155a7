// The parts of a status every source shares: what the store holds (waiting messages, sessions, runs,
// failures) and the heartbeat's and schedules' next runs, computed from the config and the stored
// job state by the scheduler's own planning rules (heartbeat/listing.ts), so they agree with it.
import type { Config } from '../../config/schema.js';
import { buildListing } from '../../heartbeat/listing.js';
import { storedDefaultTarget } from '../../heartbeat/target.js';
import type { StatusFacts } from '../../store/status-read.js';
import type { StatusSources } from './snapshot.js';
import { readStore, type StoreSources } from './store-reader.js';

export type SharedSources = StoreSources &
  Pick<StatusSources, 'heartbeat' | 'heartbeatOff' | 'schedules' | 'processes' | 'leases'>;

/** `facts`: what the store holds (store/status-read.ts), or undefined when there is no readable store. */
export function gather(facts: StatusFacts | undefined, config: Config, now: number): SharedSources {
  const stored = facts ? readStore(facts) : { lanes: [], sessions: [], runs: [], failures: [], usage: [] };
  const listing = buildListing(
    config,
    (job) => facts?.jobStates.get(job),
    now,
    () => storedDefaultTarget(config, facts),
  );
  const hb = listing.heartbeat;
  return {
    ...stored,
    ...(facts?.processes && { processes: facts.processes }),
    ...(facts?.leases && { leases: facts.leases }),
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

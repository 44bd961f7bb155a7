// `agentwire status` while no relay runs: what the config and the state folder say. Channels show
// as stopped (WhatsApp with whether it is linked); the store is opened read-only, never created or
// migrated here.
import type { Paths } from '../../config/paths.js';
import type { Config } from '../../config/schema.js';
import { storeAdmin, storeConfigFor } from '../../store/open.js';
import { linkStateFromStore } from '../doctor/link-state.js';
import type { LockState } from '../doctor/relay-lock.js';
import { gather } from './gather.js';
import { withAllChannels } from './live.js';
import { buildSnapshot, type StatusSnapshot } from './snapshot.js';

export async function offlineStatus(
  paths: Paths,
  config: Config,
  now: number,
  lock: LockState,
): Promise<StatusSnapshot> {
  const store = await storeAdmin(storeConfigFor(paths, config.store));
  const facts = await store.statusFacts();
  const link = config.whatsapp.enabled ? await linkStateFromStore(store) : 'unknown';
  return buildSnapshot({
    ...gather(facts, config, now),
    now,
    source: 'store',
    relay: { running: false, ...(lock.type === 'stale' && { staleLock: true }) },
    channels: withAllChannels([], config).map((c) =>
      c.name === 'whatsapp' && link !== 'unknown' ? { ...c, linked: link === 'linked' } : c,
    ),
    maxConcurrentRuns: config.queue.maxConcurrentRuns,
  });
}

// This process in the store's registry (store/ownership.ts), for the commands that run chats beside
// others on one state folder: the relay and `agentwire chat`.
import { heldText, type SingleConsumer } from '../channels/single.js';
import { configFingerprint, fingerprintDifference } from '../config/fingerprint.js';
import { ownershipTimings, ProcessOwner } from '../queue/process-owner.js';
import type { ProcessInfo } from '../store/ownership.js';
import type { Store } from '../store/store.js';
import { type Context, ExitError } from './context.js';

/**
 * The first live process (seen within `staleMs`) whose config differs from `me`'s in a setting that
 * matters (config/fingerprint.ts), with the settings; undefined when every live one agrees.
 */
export function configConflict(
  me: ProcessInfo,
  all: readonly ProcessInfo[],
  now: number,
  staleMs: number,
): { other: ProcessInfo; keys: string[] } | undefined {
  for (const other of all) {
    if (other.id === me.id || now - other.lastSeen > staleMs) continue;
    const keys = fingerprintDifference(me.fingerprint, other.fingerprint);
    if (keys.length > 0) return { other, keys };
  }
  return undefined;
}

/** The one sentence a process on a different config is refused with. */
export function conflictSentence(c: { other: ProcessInfo; keys: string[] }): string {
  const what = c.keys[0] === '*' ? 'its whole config (an older agentwire)' : c.keys.slice(0, 8).join(', ');
  const more = c.keys.length > 8 ? ` and ${c.keys.length - 8} more` : '';
  return (
    `Cannot start: the ${c.other.role} on ${c.other.host} (pid ${c.other.pid}) uses this database with a different config ` +
    `(${what}${more} differ); every process on one database must run the same config (docs/scale-out.md).`
  );
}

/**
 * Registers this process; `stop()` it before the store closes (it gives back every lease). On a
 * shared database (PostgreSQL) a process whose config differs from a live one's in a setting that
 * matters is refused after registering, so two starting together both see each other (and both
 * stop, rather than both run). On SQLite every process of a home reads that home's one config file.
 */
export async function startOwner(
  ctx: Context,
  store: Pick<Store, 'ownership'>,
  role: string,
): Promise<ProcessOwner> {
  const base = ownershipTimings(ctx.config.queue.leaseSeconds);
  // On a shared database a chat may move to another machine: it waits one renewal round for the
  // process that last ran it, whose disk has its session (queue/lease-affinity.ts).
  const timings = ctx.config.store.engine === 'postgres' ? { ...base, affinityMs: base.renewMs } : base;
  const owner = await ProcessOwner.start(
    store.ownership,
    { role, fingerprint: configFingerprint(ctx.config) },
    timings,
    ctx.log.child({ sub: 'owner' }),
  );
  if (ctx.config.store.engine !== 'postgres') return owner;
  // A live process renews its row every third of a lease; two leases without it is one gone.
  const conflict = configConflict(
    owner.info,
    await store.ownership.processes(),
    Date.now(),
    2 * timings.leaseMs,
  );
  if (!conflict) return owner;
  await owner.stop();
  throw new ExitError(1, conflictSentence(conflict));
}

/**
 * "An agent's stored tasks changed", heard from this process's tools and from every other process
 * on the store (`tasks_changed`): a task a run added anywhere reaches the scheduler that fires it.
 */
export function sharedTasksChanged(
  owner: Pick<ProcessOwner, 'tell' | 'on'>,
  tools: { onTasksChanged(listener: () => void): void },
): (listener: () => void) => void {
  tools.onTasksChanged(() => owner.tell('tasks_changed', ''));
  return (listener) => {
    tools.onTasksChanged(listener);
    owner.on('tasks_changed', (_key, own) => {
      if (!own) listener();
    });
  };
}

/**
 * A channel's one-consumer lease (channels/single.ts) as the leader lease `channel:<name>` of this
 * process's owner; `gained` also runs `onGained` (the relay sends what waited for the consumer).
 */
export function channelLease(
  owner: Pick<ProcessOwner, 'lead' | 'unlead' | 'claimLeads' | 'leadHolder' | 'stillLeads'>,
  name: string,
  onGained: () => void = () => undefined,
): SingleConsumer {
  const lead = `channel:${name}`;
  return {
    lead: (on) => {
      owner.lead(lead, {
        gained: (fence) => {
          on.gained(fence);
          onGained();
        },
        lost: () => on.lost(),
      });
      // Asked at once, not at the next renewal round (a failure is asked again by that round).
      owner.claimLeads().catch(() => undefined);
      return () => owner.unlead(lead);
    },
    heldBy: () => {
      const p = owner.leadHolder(lead);
      return p ? heldText(p) : undefined;
    },
    stillHolds: () => owner.stillLeads(lead),
  };
}

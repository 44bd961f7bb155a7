// This process in the store's registry (store/ownership.ts), for the commands that run chats beside
// others on one state folder: the relay and `agentwire chat`.
import { createHash } from 'node:crypto';
import { redactConfig } from '../config/redact.js';
import { ownershipTimings, ProcessOwner } from '../queue/process-owner.js';
import type { Store } from '../store/store.js';
import type { Context } from './context.js';

/** A hash of the configuration with its secrets masked: tells two processes on different configs apart. */
export function configFingerprint(config: Context['config']): string {
  return createHash('sha256')
    .update(JSON.stringify(redactConfig(config)))
    .digest('hex')
    .slice(0, 16);
}

/** Registers this process; `stop()` it before the store closes (it gives back every lease). */
export function startOwner(
  ctx: Context,
  store: Pick<Store, 'ownership'>,
  role: string,
): Promise<ProcessOwner> {
  return ProcessOwner.start(
    store.ownership,
    { role, fingerprint: configFingerprint(ctx.config) },
    ownershipTimings(ctx.config.queue.leaseSeconds),
    ctx.log.child({ sub: 'owner' }),
  );
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
